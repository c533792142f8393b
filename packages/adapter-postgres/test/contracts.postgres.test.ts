// The storage contract suites on a real PostgreSQL server: a fresh database for this file,
// dropped after. Without DATABASE_URL and Docker the suites are reported as skipped.
import { describeStorageContracts } from '@social-publisher/domain/contracts/storage-all';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Backend, createPostgresDatabase, openPostgresBackend } from './backends.ts';

const database = await createPostgresDatabase();

if (database.skipReason !== undefined) {
  describe('postgres storage contracts', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  let backend: Backend | undefined;
  beforeAll(async () => {
    backend = await openPostgresBackend(database);
  });
  afterAll(async () => {
    await backend?.close();
    await database.drop();
  });

  describeStorageContracts('postgres', async () => {
    if (!backend) throw new Error('PostgreSQL backend did not open');
    return backend.storage();
  });
}
