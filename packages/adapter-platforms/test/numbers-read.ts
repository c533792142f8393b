// What the numbers readers' tests share: a platform's reader built from the registry as the
// worker builds it, one read of some posts, and the answer for one post.
import type {
  MetricsBatchOutcome,
  MetricsItemResult,
  Platform,
  PlatformMetricsReader,
} from '@social-publisher/domain';
import { expect } from 'vitest';
import type { PlatformsConfig } from '../src/config.ts';
import { createPlatformRegistry } from '../src/registry.ts';

export function readerFor(platform: Platform, config: PlatformsConfig): PlatformMetricsReader {
  const reader = createPlatformRegistry(config).metricsReader(platform);
  if (!reader) throw new Error(`no metrics reader for ${platform}`);
  return reader;
}

export interface ReadPost {
  id: string;
  publishedAt?: Date;
}

/** One read of `posts` (target ids t-<post id>) with this connection. */
export function readPosts(
  reader: PlatformMetricsReader,
  connection: { platform: Platform; externalId: string; accessToken?: string },
  posts: readonly ReadPost[],
): Promise<MetricsBatchOutcome> {
  return reader.read({
    connection: {
      id: 'conn-1',
      platform: connection.platform,
      externalId: connection.externalId,
      accessToken: connection.accessToken ?? 'access-1',
      refreshToken: null,
      tokenExpiresAt: null,
      platformData: null,
    },
    items: posts.map((post) => ({
      targetId: `t-${post.id}`,
      platformPostId: post.id,
      publishedAt: post.publishedAt ?? new Date(Date.now() - 3_600_000),
    })),
    signal: new AbortController().signal,
  });
}

/** The answer for the post `postId` of a batch that was read. */
export function resultOf(outcome: MetricsBatchOutcome, postId: string): MetricsItemResult {
  expect(outcome.kind).toBe('read');
  const result = outcome.kind === 'read' ? outcome.results.get(`t-${postId}`) : undefined;
  if (!result) throw new Error(`no result for ${postId}: ${JSON.stringify(outcome)}`);
  return result;
}

/** The numbers of a post that was read. */
export function metricsOf(outcome: MetricsBatchOutcome, postId: string) {
  const result = resultOf(outcome, postId);
  if (result.kind !== 'read') throw new Error(`not read: ${JSON.stringify(result)}`);
  return result;
}
