/**
 * Gathers the calls made in one turn of the event loop into one flush, so that concurrent jobs
 * share a statement (and its round trip, parse and commit) instead of each paying for its own.
 * A lone call waits one `setImmediate`. A call whose key is already in the gathering batch goes
 * to a later one: one statement never carries the same row twice.
 */
/** Most calls one shared statement carries. */
export const BATCH_MAX = 64;

export interface BatchOptions<I, R> {
  /** Calls with the same key never share a flush (writes); reads may leave it out. */
  keyOf?(input: I): string;
  /** Most inputs in one flush. */
  maxSize: number;
  /** One result per input, in input order. A throw rejects every call of that flush. */
  run(inputs: I[]): Promise<R[]>;
}

interface Call<I, R> {
  input: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export function createBatcher<I, R>(options: BatchOptions<I, R>): (input: I) => Promise<R> {
  let waiting: Array<Call<I, R>> = [];
  let scheduled = false;

  const runBatch = (calls: Array<Call<I, R>>): void => {
    options.run(calls.map((call) => call.input)).then(
      (results) => {
        for (const [index, call] of calls.entries()) {
          if (index < results.length) call.resolve(results[index] as R);
          else call.reject(new Error('batched statement returned fewer results than inputs'));
        }
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  };

  const flush = (): void => {
    scheduled = false;
    let rest = waiting;
    waiting = [];
    while (rest.length > 0) {
      const batch: Array<Call<I, R>> = [];
      const keys = new Set<string>();
      const later: Array<Call<I, R>> = [];
      for (const call of rest) {
        const key = options.keyOf?.(call.input);
        if (batch.length >= options.maxSize || (key !== undefined && keys.has(key))) {
          later.push(call);
        } else {
          if (key !== undefined) keys.add(key);
          batch.push(call);
        }
      }
      runBatch(batch);
      rest = later;
    }
  };

  return (input: I) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

/**
 * `run` for one input at a time (inside a transaction, whose calls must stay in it), or shared
 * between the calls of the same moment (the pool).
 */
export function batchedOrDirect<I, R>(
  batch: boolean,
  options: BatchOptions<I, R>,
): (input: I) => Promise<R> {
  if (batch) return createBatcher(options);
  return async (input) => {
    const [result] = await options.run([input]);
    return result as R;
  };
}
