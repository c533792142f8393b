// The repeating posts and posting slots scenarios on the in-memory fakes (adapter-postgres runs
// the same ones on PGlite and PostgreSQL).
import { describeSeriesAndSlots } from '../src/testing/contracts/series-and-slots.ts';
import { createMemoryRepositories, MemoryStore, MemoryUnitOfWork } from '../src/testing/index.ts';

describeSeriesAndSlots('memory', async () => {
  const store = new MemoryStore();
  const repos = createMemoryRepositories(store);
  return { repos, uow: new MemoryUnitOfWork(store, repos) };
});
