// The reading half of the fake Bluesky service: app.bsky.feed.getPosts?uris=…&uris=… (at most
// 25, each an at:// URI) answering `{ posts: [postView] }` with the counts a test set (or derived
// from the URI); a post it does not know, or a test removed, is left out of `posts`.
import { PostNumbers } from './post-numbers.ts';

export const BLUESKY_COUNTS = ['likeCount', 'repostCount', 'replyCount', 'quoteCount'] as const;
export type BlueskyCount = (typeof BLUESKY_COUNTS)[number];

const GET_POSTS_MAX_URIS = 25;

type Answer = { status: 200; json: unknown } | { status: number; error: string; message: string };

export function createBlueskyReading(
  known: () => { uri: string; cid: string; record: Record<string, unknown> }[],
  handle: () => string,
) {
  const numbers = new PostNumbers(BLUESKY_COUNTS);
  const postOf = (uri: string) => {
    if (numbers.isGone(uri)) return undefined;
    const created = known().find((post) => post.uri === uri);
    if (created) return created;
    return numbers.has(uri) ? { uri, cid: `bafyreiset${uri.length}`, record: {} } : undefined;
  };

  /** GET app.bsky.feed.getPosts with the `uris` of the request. */
  function getPosts(uris: string[]): Answer {
    if (uris.length === 0) {
      return {
        status: 400,
        error: 'InvalidRequest',
        message: 'Error: Params must have the property "uris"',
      };
    }
    if (uris.length > GET_POSTS_MAX_URIS) {
      return {
        status: 400,
        error: 'InvalidRequest',
        message: `Error: uris must not have more than ${GET_POSTS_MAX_URIS} elements`,
      };
    }
    const bad = uris.find((uri) => !/^at:\/\/[^/]+\/[^/]+\/[^/]+$/.test(uri));
    if (bad !== undefined) {
      return {
        status: 400,
        error: 'InvalidRequest',
        message: `Error: uris/0 must be a valid at-uri`,
      };
    }
    const posts = uris.flatMap((uri) => {
      const post = postOf(uri);
      if (!post) return [];
      const did = uri.slice('at://'.length).split('/')[0] ?? '';
      return [
        {
          uri,
          cid: post.cid,
          author: { did, handle: handle() },
          record: post.record,
          ...numbers.present(uri),
          indexedAt: new Date().toISOString(),
        },
      ];
    });
    return { status: 200, json: { posts } };
  }

  return { numbers, getPosts };
}
