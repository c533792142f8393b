// The in-memory fakes must honour the same storage contract as the real adapters, or tests
// written against them would prove nothing.
import { describeStorageContracts } from '../src/testing/contracts/storage-all.ts';
import {
  createMemoryRepositories,
  MemoryStore,
  MemoryUnitOfWork,
  memoryStorageTesting,
} from '../src/testing/index.ts';

describeStorageContracts('memory', async () => {
  const store = new MemoryStore();
  const repos = createMemoryRepositories(store);
  return {
    repos,
    uow: new MemoryUnitOfWork(store, repos),
    testing: memoryStorageTesting(store),
    teardown: async () => {},
  };
});
