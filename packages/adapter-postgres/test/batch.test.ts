/**
 * The statement sharing of batch.ts on its own (the repositories that use it run the storage
 * contracts on PostgreSQL and PGlite): what shares a flush, what never does, failures.
 */
import { describe, expect, it } from 'vitest';
import { createBatcher } from '../src/batch.ts';

interface Recorder {
  flushes: string[][];
  run(inputs: string[]): Promise<string[]>;
}

function recorder(fail?: (inputs: string[]) => Error | null, delayMs = 0): Recorder {
  const flushes: string[][] = [];
  return {
    flushes,
    async run(inputs) {
      flushes.push([...inputs]);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const error = fail?.(inputs);
      if (error) throw error;
      return inputs.map((input) => `result of ${input}`);
    },
  };
}

describe('createBatcher', () => {
  it('calls of the same turn share one flush; each gets its own result', async () => {
    const r = recorder();
    const call = createBatcher({ maxSize: 10, run: r.run });
    const results = await Promise.all(['a', 'b', 'c'].map(call));
    expect(results).toEqual(['result of a', 'result of b', 'result of c']);
    expect(r.flushes).toEqual([['a', 'b', 'c']]);
    expect(await call('d')).toBe('result of d');
    expect(r.flushes).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('never puts one key twice in a flush, nor more than maxSize calls', async () => {
    const r = recorder();
    const call = createBatcher({
      keyOf: (input: string) => input[0] ?? '',
      maxSize: 2,
      run: r.run,
    });
    await Promise.all(['a1', 'a2', 'b1', 'c1', 'a3'].map(call));
    for (const flush of r.flushes) {
      expect(flush.length).toBeLessThanOrEqual(2);
      expect(new Set(flush.map((input) => input[0])).size).toBe(flush.length);
    }
    expect(r.flushes.flat().sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
  });

  it('a failed flush rejects its calls; with isolateFailures only the call that fails alone', async () => {
    const shared = recorder((inputs) => (inputs.includes('bad') ? new Error('bad row') : null));
    const plain = createBatcher({ maxSize: 10, run: shared.run });
    const plainResults = await Promise.allSettled(['ok', 'bad'].map(plain));
    expect(plainResults.map((result) => result.status)).toEqual(['rejected', 'rejected']);

    const isolated = createBatcher({ maxSize: 10, isolateFailures: true, run: shared.run });
    const results = await Promise.allSettled(['ok', 'bad', 'fine'].map(isolated));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[1]).toMatchObject({ reason: { message: 'bad row' } });
  });

  it('maxInFlight: calls gather while a flush runs and go together when it ends', async () => {
    const r = recorder(undefined, 20);
    const call = createBatcher({ maxSize: 10, maxInFlight: 1, run: r.run });
    const first = call('a');
    await new Promise((resolve) => setTimeout(resolve, 5)); // 'a' is running
    const later = ['b', 'c', 'd'].map(call);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const more = ['e'].map(call);
    expect(await Promise.all([first, ...later, ...more])).toHaveLength(5);
    expect(r.flushes).toEqual([['a'], ['b', 'c', 'd', 'e']]);
  });
});
