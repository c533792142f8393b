// The storage contract suites on the domain's in-memory fakes: the reference the database
// adapter is held to (and a check that the fakes obey the same contract).
import { describeStorageContracts } from '@social-publisher/domain/contracts/storage-all';
import {
  createMemoryRepositories,
  MemoryStore,
  MemoryUnitOfWork,
  memoryStorageTesting,
} from '@social-publisher/domain/testing';

describeStorageContracts('in-memory fake', async () => {
  const store = new MemoryStore();
  const repos = createMemoryRepositories(store);
  return {
    repos,
    uow: new MemoryUnitOfWork(store, repos),
    testing: memoryStorageTesting(store),
    teardown: async () => {},
  };
});
