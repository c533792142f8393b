// The storage contract suites on embedded PGlite (a temp dir, removed after).
import { describeStorageContracts } from '@social-publisher/domain/contracts/storage-all';
import { afterAll, beforeAll } from 'vitest';
import { type Backend, openPgliteBackend } from './backends.ts';

let backend: Backend | undefined;
beforeAll(async () => {
  backend = await openPgliteBackend();
});
afterAll(async () => {
  await backend?.close();
});

describeStorageContracts('pglite', async () => {
  if (!backend) throw new Error('PGlite backend did not open');
  return backend.storage();
});
