/**
 * The scenarios on the embedded mode: PGlite in a temporary data dir + the in-process queue,
 * API and worker in one runtime (role `embedded`), restart included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@social-publisher/config';
import type { CoreDeps, PublishQueue } from '@social-publisher/domain';
import { createRuntime, type Runtime, startWorker, type Worker } from '@social-publisher/runtime';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type FakeTiktok, startFakeTiktok } from '../../testkit/src/index.ts';
import { seedAccount, testConfig, testLogger } from './harness.ts';
import { defineScenarios, type System } from './scenarios.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sp-worker-embedded-'));
const log = testLogger('embedded');
let config: Config;
let tiktok: FakeTiktok;
let runtime: Runtime;
let worker: Worker;
let system: System;

async function start(): Promise<void> {
  runtime = await createRuntime(config, log.logger, { role: 'embedded' });
  worker = await startWorker(runtime, config);
}

/** The in-process queue cannot be unreachable; this producer fails the way Redis down does. */
function unreachableQueue(queue: PublishQueue): PublishQueue {
  const down = () => Promise.reject(new Error('queue unreachable (test)'));
  return { ...queue, enqueuePublish: down, enqueueDelivery: down, ping: async () => false };
}

beforeAll(async () => {
  tiktok = await startFakeTiktok();
  config = testConfig({
    DATA_DIR: dataDir,
    TIKTOK_API_BASE_URL: tiktok.baseUrl,
    TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
  });
  await start();
  expect(runtime.queueKind).toBe('inprocess');
  expect(runtime.databaseKind).toBe('pglite');
  expect(runtime.consumer).toBe(runtime.deps.queue); // one object, producer and consumer
  const seeded = await seedAccount(runtime.deps, ['twitter', 'linkedin', 'tiktok']);
  system = {
    api: () => runtime.deps,
    repos: () => runtime.deps.repos,
    reconcileNow: () => worker.reconcileNow(),
    restart: async () => {
      await worker.stop();
      await start();
    },
    restartLeadMs: 5_000, // reopening PGlite takes about 2 s, more on a busy machine
    unreachableApi: async () => {
      const deps: CoreDeps = { ...runtime.deps, queue: unreachableQueue(runtime.deps.queue) };
      return { deps, close: async () => {} };
    },
    tiktok,
    seeded,
    log,
  };
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await tiktok?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded mode (PGlite + in-process queue)', () => {
  defineScenarios(() => system);
});
