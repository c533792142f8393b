/**
 * End to end in the embedded mode (`pnpm start` without DATABASE_URL / REDIS_URL): HTTP API
 * (real socket) -> PGlite in a temporary data dir -> the in-process queue -> the worker in the
 * same runtime -> the real TikTok/Instagram/YouTube adapters against the testkit fakes (media
 * from the testkit media server) -> signed webhooks to a local verifying receiver.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { defineE2eScenarios, setUpWorld, type World } from './e2e/scenarios.ts';
import { type System, startSystem } from './e2e/system.ts';

describe('end to end, embedded mode (PGlite + in-process queue, API and worker in one runtime)', () => {
  let system: System | undefined;
  let world: World;

  beforeAll(async () => {
    system = await startSystem({ mode: 'embedded' });
    world = await setUpWorld(system);
  }, 60_000);

  afterAll(async () => {
    await system?.close();
  }, 60_000);

  defineE2eScenarios(() => world);
});
