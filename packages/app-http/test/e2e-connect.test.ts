/**
 * Connecting accounts end to end, in both modes: HTTP API on a real socket, the platforms'
 * fake consent pages and token endpoints, the callback, then a post through the connection
 * (worker -> the real adapters against the fakes).
 */
import { describe } from 'vitest';
import { defineConnectScenarios } from './e2e/connect-scenarios.ts';
import { productionCheck, skippedNote, useSystem } from './e2e/use-system.ts';

/**
 * Every connected token counts as expiring (margin 2 days > the fakes' lifetimes) and the
 * worker's own token pass is slow: the scenarios run passes themselves (refreshTokensNow).
 */
const TOKEN_ENV = { TOKEN_REFRESH_MARGIN_MS: '172800000', TOKEN_REFRESH_INTERVAL_MS: '3600000' };

describe('connecting accounts, embedded mode', () => {
  const e2e = useSystem('embedded', { env: TOKEN_ENV });
  defineConnectScenarios(e2e.get);
});

const production = await productionCheck();

describe.skipIf(production.skipReason)(
  `connecting accounts, production mode${skippedNote(production.skipReason)}`,
  () => {
    const e2e = useSystem('production', { database: production.database, env: TOKEN_ENV });
    defineConnectScenarios(e2e.get);
  },
);
