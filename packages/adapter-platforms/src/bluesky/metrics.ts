// The numbers of published Bluesky posts (docs/platforms.md#bluesky; docs.bsky.app
// "app.bsky.feed.getPosts"): up to 25 post URIs a call, asked of the service the account signed
// in to with its access JWT (the PDS hands app.bsky.* to the AppView), as the publisher calls it.
// A URI missing from `posts` is a deleted post: gone.
import type { PlatformMetricsReader } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import { goneResult, metricsFrom, rawOf, readBatch, readResult } from '../shared/metrics-read.ts';
import type { BlueskySettings } from './settings.ts';
import { mapped, xrpc } from './xrpc.ts';

/** getPosts takes at most 25 URIs. */
const BLUESKY_GET_POSTS_BATCH = 25;
const COUNT_KEYS = ['likeCount', 'repostCount', 'replyCount', 'quoteCount', 'bookmarkCount'];

export function createBlueskyMetricsReader(
  settings: BlueskySettings,
  runtime: PublisherRuntime,
): PlatformMetricsReader {
  return {
    batchSize: BLUESKY_GET_POSTS_BATCH,
    reports: ['likes', 'shares', 'comments', 'quotes'],
    // App passwords carry no scopes.
    scopes: [],
    read: ({ connection, items, signal }) =>
      readBatch(async () => {
        const uris = [...new Set(items.map((item) => item.platformPostId))];
        const response = await mapped('getPosts', () =>
          xrpc(settings.serviceUrl, runtime, signal, {
            nsid: 'app.bsky.feed.getPosts',
            method: 'GET',
            token: connection.accessToken,
            query: { uris },
          }),
        );
        const body = isRecord(response.json) ? response.json : {};
        const posts = Array.isArray(body.posts) ? body.posts.filter(isRecord) : [];
        const byUri = new Map(posts.map((post) => [asString(post.uri) ?? '', post]));
        return new Map(
          items.map((item) => {
            const post = byUri.get(item.platformPostId);
            const result = post
              ? readResult(
                  metricsFrom(post, {
                    likes: 'likeCount',
                    shares: 'repostCount',
                    comments: 'replyCount',
                    quotes: 'quoteCount',
                  }),
                  rawOf(post, COUNT_KEYS),
                )
              : goneResult('Bluesky returns no such post: it was deleted');
            return [item.targetId, result];
          }),
        );
      }),
  };
}
