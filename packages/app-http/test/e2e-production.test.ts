/**
 * End to end in the production mode: HTTP API (real socket) -> PostgreSQL (a fresh database)
 * -> BullMQ on the real Redis (a unique prefix, its keys deleted after) -> a separate worker
 * runtime -> the real TikTok/Instagram/YouTube adapters against the testkit fakes (media from
 * the testkit media server) -> signed webhooks to a local verifying receiver.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { defineE2eScenarios, setUpWorld, type World } from './e2e/scenarios.ts';
import { type System, startSystem, unavailable } from './e2e/system.ts';

const database = await createTestDatabase();
const skipReason = await unavailable('production', database);
if (skipReason) await database.drop(); // e.g. PostgreSQL here but no Redis

describe.skipIf(skipReason)(
  `end to end, production mode (PostgreSQL + BullMQ + worker)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let system: System | undefined;
    let world: World;

    beforeAll(async () => {
      system = await startSystem({ mode: 'production', databaseUrl: database.url });
      world = await setUpWorld(system);
    }, 60_000);

    afterAll(async () => {
      try {
        await system?.close();
      } finally {
        await database.drop();
      }
    }, 60_000);

    defineE2eScenarios(() => world);
  },
);
