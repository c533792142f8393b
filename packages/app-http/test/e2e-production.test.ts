/**
 * End to end in the production mode: HTTP API (real socket) -> PostgreSQL (a fresh database)
 * -> BullMQ on the real Redis (a unique prefix, its keys deleted after) -> a separate worker
 * runtime -> the real TikTok/Instagram/YouTube adapters against the testkit fakes (media from
 * the testkit media server) -> signed webhooks to a local verifying receiver.
 */
import { beforeAll, describe } from 'vitest';
import { defineE2eScenarios, setUpWorld, type World } from './e2e/scenarios.ts';
import { productionCheck, skippedNote, useSystem } from './e2e/use-system.ts';

const production = await productionCheck();

describe.skipIf(production.skipReason)(
  `end to end, production mode (PostgreSQL + BullMQ + worker)${skippedNote(production.skipReason)}`,
  () => {
    const e2e = useSystem('production', { database: production.database });
    let world: World;

    beforeAll(async () => {
      world = await setUpWorld(e2e.get());
    }, 60_000);

    defineE2eScenarios(() => world);
  },
);
