/**
 * The media probes of one request (a dry run of one post, a bulk or a CSV). A CSV of 1,000 rows
 * may name 20,000 URLs: each distinct URL is asked once, a few at a time, at most
 * MAX_PROBES_PER_REQUEST of them, and none once the client is gone (its AbortSignal).
 */
import type { MediaProbe, MediaProbeResult } from '../ports/index.ts';

/** Distinct media URLs one request may have probed; the others are reported as not checked. */
export const MAX_PROBES_PER_REQUEST = 100;
/** Probes of one request in flight at once. */
const PROBES_AT_ONCE = 8;

/** Why a URL was not probed: the request's budget was spent, or the client went away. */
export type ProbeSkipped = { skipped: 'limit' | 'aborted' };

export interface ProbeSession {
  probe(url: string): Promise<MediaProbeResult | ProbeSkipped>;
}

export function createProbeSession(
  probe: MediaProbe,
  options: { signal?: AbortSignal; limit?: number } = {},
): ProbeSession {
  const { signal } = options;
  const limit = options.limit ?? MAX_PROBES_PER_REQUEST;
  const asked = new Map<string, Promise<MediaProbeResult | ProbeSkipped>>();
  const waiting: Array<() => void> = [];
  let running = 0;

  const turn = async (): Promise<void> => {
    if (running < PROBES_AT_ONCE) {
      running += 1;
      return;
    }
    // The finishing probe hands its slot over (running stays as it is).
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const done = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  async function run(url: string): Promise<MediaProbeResult | ProbeSkipped> {
    await turn();
    try {
      if (signal?.aborted) return { skipped: 'aborted' };
      return await probe.probe(url, signal);
    } finally {
      done();
    }
  }

  return {
    probe(url) {
      const known = asked.get(url);
      if (known) return known;
      if (signal?.aborted) return Promise.resolve({ skipped: 'aborted' });
      if (asked.size >= limit) return Promise.resolve({ skipped: 'limit' });
      const result = run(url);
      asked.set(url, result);
      return result;
    },
  };
}

export const isSkipped = (result: MediaProbeResult | ProbeSkipped): result is ProbeSkipped =>
  'skipped' in result;
