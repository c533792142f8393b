import { describePacerContract } from '../src/testing/contracts/pacer.ts';
import { createMemoryPacer } from '../src/index.ts';

describePacerContract('memory', async () => {
  const pacer = createMemoryPacer();
  return { pacer, teardown: () => pacer.close() };
});
