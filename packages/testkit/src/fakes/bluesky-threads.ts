// The threads half of the fake Bluesky service: replies by other accounts (`addReply`, what a
// test makes others write) and app.bsky.feed.getPostThread?uri=&depth= answering
// `{ thread: threadViewPost }` as the AppView does: the post (`uri`, `cid`, `author`, `record`,
// `indexedAt`) and its `replies`, each a threadViewPost of its own, down to `depth` (default 6).
// A post it does not know is 400 `NotFound`.
import { createHash } from 'node:crypto';

/** A post as the thread shows it: ours (from `posts`) or another account's. */
interface ThreadPost {
  uri: string;
  cid: string;
  record: Record<string, unknown>;
}

export interface BlueskyForeignPost extends ThreadPost {
  author: { did: string; handle: string; displayName: string };
}

type Answer = { status: 200; json: unknown } | { status: number; error: string; message: string };

const parentOf = (post: ThreadPost): string | undefined => {
  const reply = post.record.reply as { parent?: { uri?: unknown } } | undefined;
  return typeof reply?.parent?.uri === 'string' ? reply.parent.uri : undefined;
};

const refOf = (post: ThreadPost) => ({ uri: post.uri, cid: post.cid });

export function createBlueskyThreads(
  own: () => ThreadPost[],
  ownAuthor: () => { did: string; handle: string },
) {
  const foreign: BlueskyForeignPost[] = [];
  let counter = 0;
  const all = (): Array<ThreadPost & { author?: BlueskyForeignPost['author'] }> => [
    ...own(),
    ...foreign,
  ];
  const find = (uri: string) => all().find((post) => post.uri === uri);

  /** Another account answers the post at `parentUri` (ours or another reply). */
  function addReply(parentUri: string, text: string): BlueskyForeignPost {
    const parent = find(parentUri);
    if (!parent) throw new Error(`no post ${parentUri}`);
    const rootRef = (parent.record.reply as { root?: unknown } | undefined)?.root ?? refOf(parent);
    counter += 1;
    const did = 'did:plc:someoneelse00000000000000';
    const uri = `at://${did}/app.bsky.feed.post/3lfan${String(counter).padStart(8, '2')}`;
    const post: BlueskyForeignPost = {
      uri,
      cid: `bafyrei${createHash('sha256').update(uri).digest('hex').slice(0, 40)}`,
      record: {
        $type: 'app.bsky.feed.post',
        text,
        createdAt: new Date().toISOString(),
        reply: { root: rootRef, parent: refOf(parent) },
      },
      author: { did, handle: 'fan.bsky.social', displayName: 'A Fan' },
    };
    foreign.push(post);
    return post;
  }

  function view(
    post: ThreadPost & { author?: BlueskyForeignPost['author'] },
    depth: number,
  ): Record<string, unknown> {
    const replies: Record<string, unknown>[] | undefined =
      depth <= 0
        ? undefined
        : all()
            .filter((candidate) => parentOf(candidate) === post.uri)
            .map((reply) => view(reply, depth - 1));
    const author = post.author ?? { ...ownAuthor(), displayName: 'Fake Account' };
    return {
      $type: 'app.bsky.feed.defs#threadViewPost',
      post: {
        uri: post.uri,
        cid: post.cid,
        author,
        record: post.record,
        indexedAt: String(post.record.createdAt ?? new Date().toISOString()),
      },
      ...(replies ? { replies } : {}),
    };
  }

  /** GET app.bsky.feed.getPostThread. */
  function getPostThread(uri: string, depth: number): Answer {
    const post = find(uri);
    if (!post) return { status: 400, error: 'NotFound', message: `Post not found: ${uri}` };
    return { status: 200, json: { thread: view(post, Math.min(Math.max(depth, 0), 1000)) } };
  }

  return { foreign, addReply, getPostThread };
}
