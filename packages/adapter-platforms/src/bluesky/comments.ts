// The comments under published Bluesky posts (docs/platforms.md#bluesky; docs.bsky.app
// "app.bsky.feed.getPostThread", "com.atproto.repo.createRecord"):
// - read: app.bsky.feed.getPostThread?uri=&depth= (the service the account signed in to hands
//   app.bsky.* to the AppView): the post's `replies`, each a threadViewPost with its own
//   replies, walked depth first; a reply's parent is its record's `reply.parent.uri`;
// - reply: a post record with `reply: { root, parent }` (strong references: the thread of the
//   comment gives its cid and its root), created under a record key derived from the reply's
//   key and intent time, so a second create of the same reply is refused by Bluesky and the
//   first one answered (api.ts createPost), and an earlier reply is found by getRecord;
// - delete: com.atproto.repo.deleteRecord, the account's own records only. Hiding a reply is a
//   threadgate of the post, not managed here. A post Bluesky does not know is `NotFound`: gone.
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { CommentGone, commentsClient, ownReply } from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { createBlueskyApi, POST_COLLECTION, type StrongRef } from './api.ts';
import { recordKey } from './record-key.ts';
import { recordOf } from './remove.ts';
import type { BlueskySettings } from './settings.ts';
import { mapped, XrpcAnswerError, xrpc, xrpcFailure } from './xrpc.ts';

/** How deep a read walks the thread (getPostThread allows up to 1000). */
const THREAD_DEPTH = 50;
/** Bluesky's post length, in graphemes. */
const REPLY_MAX_LENGTH = 300;

type ThreadView = Record<string, unknown>;

/** A threadViewPost's post as a comment under `postUri`, or null for a blocked or missing one. */
function commentOf(view: ThreadView, postUri: string, ownDid: string): PlatformComment | null {
  const post = isRecord(view.post) ? view.post : null;
  const record = post && isRecord(post.record) ? post.record : {};
  const author = post && isRecord(post.author) ? post.author : {};
  const uri = post ? asString(post.uri) : undefined;
  const did = asString(author.did);
  const created = Date.parse(asString(record.createdAt) ?? asString(post?.indexedAt) ?? '');
  if (!uri || !did || !Number.isFinite(created)) return null;
  const reply = isRecord(record.reply) ? record.reply : {};
  const parent = isRecord(reply.parent) ? asString(reply.parent.uri) : undefined;
  return {
    platformCommentId: uri,
    parentPlatformId: !parent || parent === postUri ? null : parent,
    author: {
      id: did,
      name: asString(author.displayName) || null,
      handle: asString(author.handle) ?? null,
    },
    text: asString(record.text) ?? '',
    createdAt: new Date(created),
    hidden: false,
    mine: did === ownDid,
  };
}

/** The replies below `view`, depth first, at most `limit`. */
function repliesOf(
  view: ThreadView,
  postUri: string,
  ownDid: string,
  limit: number,
): PlatformComment[] {
  const found: PlatformComment[] = [];
  const walk = (node: ThreadView) => {
    const replies = Array.isArray(node.replies) ? node.replies.filter(isRecord) : [];
    for (const reply of replies) {
      if (found.length >= limit) return;
      const comment = commentOf(reply, postUri, ownDid);
      if (comment) found.push(comment);
      walk(reply);
    }
  };
  walk(view);
  return found;
}

export function createBlueskyCommentsClient(
  settings: BlueskySettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  /** The thread at `uri` (its post and replies down to `depth`); NotFound is CommentGone. */
  async function thread(
    connection: PublishConnection,
    uri: string,
    depth: number,
    signal: AbortSignal,
  ): Promise<ThreadView> {
    try {
      const answer = await xrpc(settings.serviceUrl, runtime, signal, {
        nsid: 'app.bsky.feed.getPostThread',
        method: 'GET',
        token: connection.accessToken,
        query: { uri, depth: String(depth), parentHeight: '0' },
      });
      const body = isRecord(answer.json) ? answer.json : {};
      const view = isRecord(body.thread) ? body.thread : {};
      if (!isRecord(view.post)) throw new CommentGone(`Bluesky: ${uri} is not a post one can see`);
      return view;
    } catch (error) {
      if (error instanceof XrpcAnswerError && error.answer.error === 'NotFound') {
        throw new CommentGone(`Bluesky getPostThread: ${error.answer.message}`);
      }
      if (error instanceof XrpcAnswerError) throw xrpcFailure(error.answer, 'getPostThread');
      throw error;
    }
  }

  const keyOf = (request: { idempotencyKey: string; intentAt?: Date; since?: Date }) =>
    recordKey(request.intentAt ?? request.since ?? new Date(0), request.idempotencyKey, 0);

  return commentsClient({
    replyMaxLength: () => REPLY_MAX_LENGTH,
    can: (comment) => ({ reply: true, hide: false, delete: comment.mine }),
    cannot: (action) =>
      action === 'hide'
        ? 'Bluesky hides replies through the post’s threadgate, which is not managed here'
        : 'Bluesky deletes only your own posts',
    async list({ connection, platformPostId, limit, signal }) {
      const view = await thread(connection, platformPostId, THREAD_DEPTH, signal);
      return repliesOf(view, platformPostId, connection.externalId, limit);
    },
    async reply(request) {
      const { connection, platformCommentId, text, signal } = request;
      const parentView = await thread(connection, platformCommentId, 0, signal);
      const parentPost = parentView.post as Record<string, unknown>;
      const parent: StrongRef = { uri: platformCommentId, cid: asString(parentPost.cid) ?? '' };
      const record = isRecord(parentPost.record) ? parentPost.record : {};
      const parentReply = isRecord(record.reply) ? record.reply : {};
      const root = isRecord(parentReply.root) ? (parentReply.root as unknown as StrongRef) : parent;
      const createdAt = new Date();
      const api = createBlueskyApi(settings, runtime, signal);
      const ref = await mapped('createRecord', () =>
        api.createPost(connection.accessToken, connection.externalId, keyOf(request), {
          $type: POST_COLLECTION,
          text,
          createdAt: createdAt.toISOString(),
          reply: { root, parent },
        }),
      );
      return ownReply(ref.uri, platformCommentId, connection.externalId, text, createdAt);
    },
    async findReply(request) {
      const { connection, platformCommentId, text, since, signal } = request;
      const api = createBlueskyApi(settings, runtime, signal);
      const rkey = keyOf(request);
      const found = await mapped('getRecord', () =>
        api.findPost(connection.accessToken, connection.externalId, rkey),
      );
      if (!found) return undefined;
      return ownReply(found.uri, platformCommentId, connection.externalId, text, since);
    },
    delete: ({ connection, platformCommentId, signal }) =>
      mapped('deleteRecord', () =>
        xrpc(settings.serviceUrl, runtime, signal, {
          nsid: 'com.atproto.repo.deleteRecord',
          method: 'POST',
          token: connection.accessToken,
          json: recordOf(platformCommentId),
        }),
      ),
  });
}
