import { type CoreDeps, type CoreSettings, DEFAULT_SETTINGS, type MediaHosting } from '../deps.ts';
import type { IdGenerator, JobHandlers, Repositories, TokenCipher } from '../ports/index.ts';
import { createAesGcmCipher } from '../secret-cipher.ts';
import { deliverWebhook } from '../use-cases/deliver-webhook.ts';
import { processPublishJob } from '../use-cases/publish-job.ts';
import { processUnpublishJob } from '../use-cases/unpublish-job.ts';
import { FakeClock } from './clock.ts';
import { FakeQueue } from './fake-queue.ts';
import { SequentialIds } from './ids.ts';
import { MemoryLogger } from './logger.ts';
import { MemoryMediaStore } from './memory-media-store.ts';
import { createMemoryRepositories, MemoryUnitOfWork } from './memory-repositories.ts';
import { MemoryStore } from './memory-store.ts';
import { ScriptedPlatformRegistry } from './scripted-publisher.ts';
import { RecordingWebhookSender } from './webhook-sender.ts';

/** A fixed key, so ciphertexts made in one test deps can be read by another. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7);

/** CoreDeps wired to fakes, typed as the fakes so tests can drive them. */
export interface TestDeps extends CoreDeps {
  store: MemoryStore;
  repos: Repositories;
  uow: MemoryUnitOfWork;
  clock: FakeClock;
  queue: FakeQueue;
  platforms: ScriptedPlatformRegistry;
  webhookSender: RecordingWebhookSender;
  logger: MemoryLogger;
  media: MediaHosting & { store: MemoryMediaStore };
  /** The worker's job handlers over these deps (processPublishJob, deliverWebhook, processUnpublishJob). */
  handlers: JobHandlers;
  /** Runs queued jobs until the queue is empty, advancing the clock to delayed ones. */
  runJobs(options?: { maxRuns?: number }): Promise<number>;
}

export interface TestDepsOverrides {
  now?: Date | string;
  settings?: Partial<CoreSettings>;
  clock?: FakeClock;
  store?: MemoryStore;
  queue?: FakeQueue;
  platforms?: ScriptedPlatformRegistry;
  webhookSender?: RecordingWebhookSender;
  logger?: MemoryLogger;
  ids?: IdGenerator;
  cipher?: TokenCipher;
  mediaMaxBytes?: number;
}

export function createTestDeps(overrides: TestDepsOverrides = {}): TestDeps {
  const clock = overrides.clock ?? new FakeClock(overrides.now);
  const store = overrides.store ?? new MemoryStore();
  const repos = createMemoryRepositories(store);
  const queue = overrides.queue ?? new FakeQueue(clock);
  const deps: TestDeps = {
    store,
    repos,
    uow: new MemoryUnitOfWork(store, repos),
    clock,
    queue,
    platforms: overrides.platforms ?? new ScriptedPlatformRegistry(),
    webhookSender: overrides.webhookSender ?? new RecordingWebhookSender(),
    logger: overrides.logger ?? new MemoryLogger(),
    ids: overrides.ids ?? new SequentialIds(),
    cipher: overrides.cipher ?? createAesGcmCipher(TEST_ENCRYPTION_KEY),
    settings: { ...DEFAULT_SETTINGS, ...overrides.settings },
    media: {
      store: new MemoryMediaStore(),
      maxBytes: overrides.mediaMaxBytes ?? 4 * 1024 ** 3,
      retentionMs: 30 * 86_400_000,
    },
    handlers: {
      publish: (postId, ctx) => processPublishJob(deps, postId, ctx),
      deliver: (deliveryId, ctx) => deliverWebhook(deps, deliveryId, ctx),
      unpublish: (postId, ctx) => processUnpublishJob(deps, postId, ctx),
    },
    runJobs: (options) => queue.drain(deps.handlers, options),
  };
  return deps;
}
