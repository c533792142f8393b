/**
 * Connecting accounts end to end, in both modes: HTTP API on a real socket, the platforms'
 * fake consent pages and token endpoints, the callback, then a post through the connection
 * (worker -> the real adapters against the fakes).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { defineConnectScenarios } from './e2e/connect-scenarios.ts';
import { type System, startSystem, unavailable } from './e2e/system.ts';

/**
 * Every connected token counts as expiring (margin 2 days > the fakes' lifetimes) and the
 * worker's own token pass is slow: the scenarios run passes themselves (refreshTokensNow).
 */
const TOKEN_ENV = { TOKEN_REFRESH_MARGIN_MS: '172800000', TOKEN_REFRESH_INTERVAL_MS: '3600000' };

describe('connecting accounts, embedded mode', () => {
  let system: System | undefined;
  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded', env: TOKEN_ENV });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  }, 60_000);
  defineConnectScenarios(() => {
    if (!system) throw new Error('no system');
    return system;
  });
});

const database = await createTestDatabase();
const skipReason = await unavailable('production', database);
if (skipReason) await database.drop();

describe.skipIf(skipReason)(
  `connecting accounts, production mode${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let system: System | undefined;
    beforeAll(async () => {
      system = await startSystem({ mode: 'production', databaseUrl: database.url, env: TOKEN_ENV });
    }, 60_000);
    afterAll(async () => {
      try {
        await system?.close();
      } finally {
        await database.drop();
      }
    }, 60_000);
    defineConnectScenarios(() => {
      if (!system) throw new Error('no system');
      return system;
    });
  },
);
