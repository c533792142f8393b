/**
 * Gathers the calls made in one turn of the event loop into one flush, so that concurrent jobs
 * share a statement (and its round trip, parse and commit) instead of each paying for its own.
 * A lone call waits one `setImmediate`. A call whose key is already in the gathering batch goes
 * to a later one: one statement never carries the same row twice.
 */
/** How a set of repositories shares statements (see createRepositories). */
export interface StatementSharing {
  batch: boolean;
  /** Shared statements of one kind running at once (1 on PGlite's single connection). */
  maxInFlight?: number;
  /**
   * Runs at each call, in the caller's async context (a shared statement runs in another's):
   * the unit of work's check that no pool repository is used inside a transaction.
   */
  check?: () => void;
}

/** Most calls one shared statement carries. */
export const BATCH_MAX = 64;

export interface BatchOptions<I, R> {
  /** Calls with the same key never share a flush (writes); reads may leave it out. */
  keyOf?(input: I): string;
  /** Most inputs in one flush. */
  maxSize: number;
  /**
   * Statements of this kind running at once (default: no limit). While that many run, new
   * calls gather and go together when one finishes: on a single connection (PGlite), where
   * statements queue anyway, batches grow with the load instead of queueing one by one.
   */
  maxInFlight?: number;
  /**
   * When a shared statement fails, run each of its calls again alone, so one call's error (a
   * duplicate id, a row deleted meanwhile) stays its own. Without it a throw rejects every call
   * of that statement.
   */
  isolateFailures?: boolean;
  /** One result per input, in input order. */
  run(inputs: I[]): Promise<R[]>;
}

interface Call<I, R> {
  input: I;
  resolve(result: R): void;
  reject(error: unknown): void;
}

export function createBatcher<I, R>(options: BatchOptions<I, R>): (input: I) => Promise<R> {
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  let waiting: Array<Call<I, R>> = [];
  let scheduled = false;
  let inFlight = 0;

  /** The next batch: up to maxSize waiting calls, no key twice; the rest keep waiting. */
  const take = (): Array<Call<I, R>> => {
    const batch: Array<Call<I, R>> = [];
    const keys = new Set<string>();
    const rest: Array<Call<I, R>> = [];
    for (const call of waiting) {
      const key = options.keyOf?.(call.input);
      if (batch.length >= options.maxSize || (key !== undefined && keys.has(key))) {
        rest.push(call);
      } else {
        if (key !== undefined) keys.add(key);
        batch.push(call);
      }
    }
    waiting = rest;
    return batch;
  };

  const runBatch = (calls: Array<Call<I, R>>): void => {
    inFlight += 1;
    options
      .run(calls.map((call) => call.input))
      .then(
        (results) => {
          for (const [index, call] of calls.entries()) {
            if (index < results.length) call.resolve(results[index] as R);
            else call.reject(new Error('batched statement returned fewer results than inputs'));
          }
        },
        (error: unknown) => {
          if (!options.isolateFailures || calls.length === 1) {
            for (const call of calls) call.reject(error);
            return;
          }
          for (const call of calls) {
            options.run([call.input]).then(
              (results) => call.resolve(results[0] as R),
              (alone: unknown) => call.reject(alone),
            );
          }
        },
      )
      .finally(() => {
        inFlight -= 1;
        // What gathered while this one ran goes now, as one statement.
        flush();
      });
  };

  function flush(): void {
    scheduled = false;
    while (waiting.length > 0 && inFlight < maxInFlight) runBatch(take());
  }

  return (input: I) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!scheduled && inFlight < maxInFlight) {
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
  sharing: StatementSharing,
  options: BatchOptions<I, R>,
): (input: I) => Promise<R> {
  if (sharing.batch) {
    const shared = createBatcher(
      sharing.maxInFlight === undefined
        ? options
        : { ...options, maxInFlight: sharing.maxInFlight },
    );
    const check = sharing.check;
    if (!check) return shared;
    return async (input) => {
      check();
      return shared(input);
    };
  }
  return async (input) => {
    const [result] = await options.run([input]);
    return result as R;
  };
}
