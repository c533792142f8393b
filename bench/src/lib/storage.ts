/**
 * Direct access to a backend's database, beside (PostgreSQL) or instead of (PGlite: one process
 * only) the runtime: bulk seeding with multi-row INSERTs and the raw-SQL floors.
 */
import { createPlatformRegistry } from '@social-publisher/adapter-platforms';
import { type DatabaseHandle, openDatabase } from '@social-publisher/adapter-postgres';
import { type Config, resolveEncryptionKey } from '@social-publisher/config';
import {
  type CoreDeps,
  createAesGcmCipher,
  createUuidV7Generator,
  DEFAULT_SETTINGS,
  type Logger,
} from '@social-publisher/domain';

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

export interface Storage {
  handle: DatabaseHandle;
  /** Enough of CoreDeps for the seeding use cases (createUser, connectSocialAccount, ...). */
  deps: CoreDeps;
}

export async function openStorage(config: Config, poolSize = 10): Promise<Storage> {
  const handle = await openDatabase({
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    dataDir: config.dataDir,
    poolSize,
    migrate: true,
  });
  const unavailable = async () => {
    throw new Error('not available while seeding');
  };
  const deps: CoreDeps = {
    uow: handle.uow,
    repos: handle.repos,
    queue: {
      kind: 'inprocess',
      enqueuePublish: unavailable,
      cancelPublish: unavailable,
      enqueueDelivery: unavailable,
      enqueueUnpublish: unavailable,
      ping: async () => false,
      close: async () => {},
    },
    // The real platforms' rules; no publisher is ever called here.
    platforms: createPlatformRegistry({ settings: {} }),
    webhookSender: { send: unavailable },
    clock: { now: () => new Date() },
    ids: createUuidV7Generator(),
    cipher: createAesGcmCipher(resolveEncryptionKey(config)),
    logger: quiet,
    settings: {
      ...DEFAULT_SETTINGS,
      webhookAllowHttp: config.webhookAllowHttp,
      webhookAllowPrivateNetworks: config.webhookAllowPrivateNetworks,
    },
  };
  return { handle, deps };
}

export async function withStorage<T>(
  config: Config,
  fn: (storage: Storage) => Promise<T>,
  poolSize?: number,
): Promise<T> {
  const storage = await openStorage(config, poolSize);
  try {
    return await fn(storage);
  } finally {
    await storage.handle.close();
  }
}
