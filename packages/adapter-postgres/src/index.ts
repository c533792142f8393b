export {
  createKysely,
  type DatabaseHandle,
  type DatabaseKind,
  type OpenDatabaseOptions,
  openDatabase,
} from './database.ts';
export { createHealthCheck } from './health.ts';
export { type MigrationReport, migrateToLatest } from './migrate.ts';
export { migrations } from './migrations/index.ts';
export { createRepositories } from './repositories/index.ts';
export type { Database } from './schema.ts';
export {
  type ReencryptReport,
  reencryptSecrets,
  type UnreadableSecret,
} from './secret-rotation.ts';
export { createStorage, type Storage } from './unit-of-work.ts';
