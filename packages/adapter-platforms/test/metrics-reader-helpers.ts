// Calling a platform's metrics reader in tests: the reader as the registry builds it, a
// connection, items, and the one item's result out of a batch outcome.
import type {
  MetricsBatchOutcome,
  MetricsItemResult,
  MetricsReadItem,
  Platform,
  PlatformData,
  PlatformMetricsReader,
  PublishConnection,
} from '@social-publisher/domain';
import { createPlatformRegistry, type PlatformsConfig } from '../src/index.ts';

export function readerFor(platform: Platform, config: PlatformsConfig): PlatformMetricsReader {
  const reader = createPlatformRegistry(config).metricsReader(platform);
  if (!reader) throw new Error(`no metrics reader for ${platform}`);
  return reader;
}

export function connectionFor(
  platform: Platform,
  accessToken: string,
  platformData: PlatformData | null = null,
  externalId = 'me',
): PublishConnection {
  return {
    id: `conn-${platform}`,
    platform,
    externalId,
    accessToken,
    refreshToken: null,
    tokenExpiresAt: null,
    platformData,
  };
}

/** Items for these post ids, the target id `t-<post id>`. */
export const itemsFor = (...postIds: string[]): MetricsReadItem[] =>
  postIds.map((platformPostId) => ({
    targetId: `t-${platformPostId}`,
    platformPostId,
    publishedAt: new Date(),
  }));

/** The results of a `read` outcome (the test fails on any other). */
export function resultsOf(outcome: MetricsBatchOutcome): ReadonlyMap<string, MetricsItemResult> {
  if (outcome.kind !== 'read') throw new Error(`expected a read, got ${JSON.stringify(outcome)}`);
  return outcome.results;
}

/** The result of the item of post `postId`. */
export function resultFor(outcome: MetricsBatchOutcome, postId: string): MetricsItemResult {
  const result = resultsOf(outcome).get(`t-${postId}`);
  if (!result) throw new Error(`no result for ${postId}`);
  return result;
}

/** Reads with a fresh signal. */
export const readWith = (
  reader: PlatformMetricsReader,
  connection: PublishConnection,
  items: MetricsReadItem[],
): Promise<MetricsBatchOutcome> =>
  reader.read({ connection, items, signal: new AbortController().signal });

/** A retryAt `seconds` from `from` (the readers add up to 10 % jitter). */
export function expectRetryAround(retryAt: Date, from: number, seconds: number): void {
  const waited = retryAt.getTime() - from;
  if (waited < seconds * 1000 - 2_000 || waited > seconds * 1100 + 2_000) {
    throw new Error(
      `retryAt ${retryAt.toISOString()} is not ~${seconds}s after ${new Date(from).toISOString()}`,
    );
  }
}
