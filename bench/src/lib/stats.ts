/** Small statistics helpers: medians of runs, percentiles of latency samples. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function max(values: readonly number[]): number {
  let result = Number.NEGATIVE_INFINITY;
  for (const value of values) if (value > result) result = value;
  return values.length === 0 ? Number.NaN : result;
}

/** A number for a plain line: no more digits than the magnitude deserves. */
export function fmt(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (digits !== undefined) return value.toFixed(digits);
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function fmtRuns(values: readonly number[], digits?: number): string {
  return values.map((value) => fmt(value, digits)).join(' ');
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Wall-clock milliseconds with sub-millisecond resolution (epoch based, comparable to Date). */
export const nowMs = (): number => performance.timeOrigin + performance.now();

/** Polls `probe` until it returns true; throws after `timeoutMs`. */
export async function waitUntil(
  what: string,
  probe: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 5,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Calls `operation` in `concurrency` parallel loops for `durationMs` (a closed loop, like
 * autocannon's connections); returns the completed calls, their latencies (ms) and the errors.
 */
export async function closedLoop(
  concurrency: number,
  durationMs: number,
  operation: () => Promise<void>,
): Promise<{ count: number; errors: number; latencies: number[]; elapsedMs: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const start = performance.now();
  const end = start + durationMs;
  const loop = async () => {
    while (performance.now() < end) {
      const began = performance.now();
      try {
        await operation();
        latencies.push(performance.now() - began);
      } catch (error) {
        errors += 1;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsedMs = performance.now() - start;
  if (errors > 0 && latencies.length === 0) throw firstError;
  return { count: latencies.length, errors, latencies, elapsedMs };
}

/** Runs `items` through `fn` with at most `concurrency` at a time. */
export async function mapLimit<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const loop = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, loop));
}

/**
 * Peak RSS growth of each run against the floor's (the bare pipe) of the same pairing. RSS is
 * sampled, so a growth under `resolution` bytes (a smoke-size run's pipe may show none at all)
 * is read as `resolution`: the ratio stays finite and says "no more than the pipe's noise".
 */
export function growthRatios(
  runs: readonly { growth: number }[],
  floor: readonly { growth: number }[],
  resolution = 1024 * 1024,
): number[] {
  return runs.map((run, index) => {
    const base = floor[index]?.growth;
    if (base === undefined) return Number.NaN;
    return Math.max(run.growth, resolution) / Math.max(base, resolution);
  });
}
