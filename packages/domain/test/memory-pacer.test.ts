import { createMemoryPacer } from '../src/index.ts';
import { describePacerContract } from '../src/testing/contracts/pacer.ts';

describePacerContract('memory', async () => {
  const pacer = createMemoryPacer();
  return { pacer, teardown: () => pacer.close() };
});
