/**
 * End to end in the embedded mode (`pnpm start` without DATABASE_URL / REDIS_URL): HTTP API
 * (real socket) -> PGlite in a temporary data dir -> the in-process queue -> the worker in the
 * same runtime -> the real TikTok/Instagram/YouTube adapters against the testkit fakes (media
 * from the testkit media server) -> signed webhooks to a local verifying receiver.
 */
import { beforeAll, describe } from 'vitest';
import { defineE2eScenarios, setUpWorld, type World } from './e2e/scenarios.ts';
import { useSystem } from './e2e/use-system.ts';

describe('end to end, embedded mode (PGlite + in-process queue, API and worker in one runtime)', () => {
  const e2e = useSystem('embedded');
  let world: World;

  beforeAll(async () => {
    world = await setUpWorld(e2e.get());
  }, 60_000);

  defineE2eScenarios(() => world);
});
