import type { Repositories, UnitOfWork } from '../ports/index.ts';
import { memoryAccountRepository, memoryApiKeyRepository } from './memory-accounts.ts';
import { memoryCommentsRepository } from './memory-comments.ts';
import { memoryIdempotencyRepository } from './memory-idempotency.ts';
import { memoryMediaRepository } from './memory-media.ts';
import { memoryMetricsRepository } from './memory-metrics.ts';
import { memoryOAuthStateRepository } from './memory-oauth-states.ts';
import { memoryPlatformAppRepository } from './memory-platform-apps.ts';
import { memoryPostRepository } from './memory-posts.ts';
import { memoryPostSeriesRepository, memorySlotRepository } from './memory-series.ts';
import { memorySocialAccountRepository } from './memory-social-accounts.ts';
import type { MemoryStore } from './memory-store.ts';
import { memoryDeliveryRepository, memoryWebhookRepository } from './memory-webhooks.ts';

/**
 * Wraps every method so `store.failNext('<repo>.<method>')` can make it throw, and
 * `store.loseNextAnswer(...)` throw once it has taken effect.
 */
function withFaults<T extends object>(store: MemoryStore, name: string, repo: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [method, fn] of Object.entries(repo)) {
    wrapped[method] = async (...args: unknown[]) => {
      store.checkFault(`${name}.${method}`);
      const result = await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
      store.checkLostAnswer(`${name}.${method}`);
      return result;
    };
  }
  return wrapped as T;
}

/** Every repository port over one in-memory store. */
export function createMemoryRepositories(store: MemoryStore): Repositories {
  return {
    accounts: withFaults(store, 'accounts', memoryAccountRepository(store)),
    apiKeys: withFaults(store, 'apiKeys', memoryApiKeyRepository(store)),
    socialAccounts: withFaults(store, 'socialAccounts', memorySocialAccountRepository(store)),
    posts: withFaults(store, 'posts', memoryPostRepository(store)),
    webhooks: withFaults(store, 'webhooks', memoryWebhookRepository(store)),
    deliveries: withFaults(store, 'deliveries', memoryDeliveryRepository(store)),
    idempotency: withFaults(store, 'idempotency', memoryIdempotencyRepository(store)),
    oauthStates: withFaults(store, 'oauthStates', memoryOAuthStateRepository(store)),
    platformApps: withFaults(store, 'platformApps', memoryPlatformAppRepository(store)),
    series: withFaults(store, 'series', memoryPostSeriesRepository(store)),
    slots: withFaults(store, 'slots', memorySlotRepository(store)),
    media: withFaults(store, 'media', memoryMediaRepository(store)),
    metrics: withFaults(store, 'metrics', memoryMetricsRepository(store)),
    comments: withFaults(store, 'comments', memoryCommentsRepository(store)),
  };
}

/**
 * Transactions over the store: units of work run one at a time (like SERIALIZABLE) and a
 * throw restores the snapshot taken at the start. Do not nest `run` calls (it would wait on
 * itself), and note that a rollback also discards writes made outside it meanwhile.
 */
export class MemoryUnitOfWork implements UnitOfWork {
  readonly #store: MemoryStore;
  readonly #repos: Repositories;
  #tail: Promise<void> = Promise.resolve();
  commits = 0;
  rollbacks = 0;

  constructor(store: MemoryStore, repos: Repositories = createMemoryRepositories(store)) {
    this.#store = store;
    this.#repos = repos;
  }

  async run<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release = () => {};
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    const snapshot = this.#store.snapshot();
    try {
      const result = await work(this.#repos);
      this.commits++;
      return result;
    } catch (error) {
      this.#store.restore(snapshot);
      this.rollbacks++;
      throw error;
    } finally {
      release();
    }
  }
}
