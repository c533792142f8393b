// The replies under published Threads posts (docs/platforms.md#threads; developers.facebook.com
// "Threads API: Reply Management"), the token in the query:
// - read: GET /{threads-media-id}/conversation (every reply below the post, flattened; the
//   `replies` edge holds only the direct ones) with `username`, `timestamp`, `replied_to`,
//   `hide_status` and `is_reply_owned_by_me` (Threads gives no author id: the username stands
//   for it);
// - reply: a TEXT container with `reply_to_id`, then threads_publish (nothing is visible until
//   the publish); an earlier reply is looked for among the profile's replies since the attempt;
// - hide: POST /{reply-id}/manage_reply `hide` (others' replies); delete: DELETE /{id}, the
//   profile's own replies (threads_delete).
// Reading needs threads_read_replies, answering and hiding threads_manage_replies (asked for at
// connect). 100/33, or a reply_to_id Threads says is not a post, is a reply deleted meanwhile.
import type { PlatformComment, PlatformCommentsClient } from '@social-publisher/domain';
import { graphCommentCalls, graphTime, readGraphPages } from '../meta/comments.ts';
import { deleteGraphObject } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  commentsClient,
  ownReply,
  REPLY_CLOCK_SKEW_MS,
  recentAsReply,
} from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import { createThreadsApi, THREADS_API_VERSION, threadsFailure } from './api.ts';
import type { ThreadsSettings } from './settings.ts';

const FIELDS = 'id,text,username,timestamp,replied_to,hide_status,is_reply_owned_by_me';
/** Threads' post length. */
const REPLY_MAX_LENGTH = 500;

function commentOf(item: unknown, postId: string): PlatformComment | null {
  if (!isRecord(item)) return null;
  const id = asString(item.id);
  const username = asString(item.username);
  const created = graphTime(item.timestamp);
  if (!id || !Number.isFinite(created)) return null;
  const parent = isRecord(item.replied_to) ? asString(item.replied_to.id) : undefined;
  return {
    platformCommentId: id,
    parentPlatformId: !parent || parent === postId ? null : parent,
    author: { id: username ?? '', name: null, handle: username ?? null },
    text: asString(item.text) ?? '',
    createdAt: new Date(created),
    hidden: item.hide_status === 'HIDDEN',
    mine: item.is_reply_owned_by_me === true,
  };
}

export function createThreadsCommentsClient(
  settings: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  const graph = graphCommentCalls(runtime, {
    baseUrl: settings.apiBaseUrl,
    version: THREADS_API_VERSION,
    label: 'Threads',
    failure: threadsFailure,
    // A reply to a reply deleted meanwhile: Threads says the reply_to_id is not a post.
    alsoGone: (error) =>
      error.code === 100 && /reply_to_id .* is not a post/.test(error.message ?? ''),
  });

  return commentsClient({
    scopes: ['threads_read_replies', 'threads_manage_replies'],
    replyMaxLength: () => REPLY_MAX_LENGTH,
    can: (comment) => ({ reply: true, hide: !comment.mine, delete: comment.mine }),
    cannot: (action) =>
      action === 'hide'
        ? 'Threads hides only replies by others'
        : 'Threads deletes only your own replies',
    list({ connection, platformPostId, limit, signal }) {
      const query = { fields: FIELDS, reverse: 'false', access_token: connection.accessToken };
      const path = `/${encodeURIComponent(platformPostId)}/conversation`;
      return readGraphPages(
        graph(signal),
        path,
        query,
        limit,
        (item) => commentOf(item, platformPostId) ?? [],
      );
    },
    async reply({ connection, platformCommentId, text, signal }) {
      const api = createThreadsApi(settings, runtime, signal);
      const token = connection.accessToken;
      const user = connection.externalId;
      const params = { media_type: 'TEXT', text, reply_to_id: platformCommentId };
      const container = await graph(signal)('POST', `/${user}/threads`, {
        query: { access_token: token },
        form: params,
      });
      const containerId = asString(container.id);
      if (!containerId) throw fail('invalid_response', 'Threads reply container gave no id', true);
      const id = await api.publish(token, user, containerId);
      return ownReply(id, platformCommentId, user, text);
    },
    async findReply(request) {
      const { connection, text, since, signal } = request;
      const api = createThreadsApi(settings, runtime, signal);
      const recent = await api.recent(connection.accessToken, connection.externalId, 'replies');
      const from = since.getTime() - REPLY_CLOCK_SKEW_MS;
      return recentAsReply(
        recent.find((r) => r.text === text && r.createdAt >= from),
        request,
      );
    },
    hide: ({ connection, platformCommentId, hidden, signal }) =>
      graph(signal)('POST', `/${encodeURIComponent(platformCommentId)}/manage_reply`, {
        query: { hide: String(hidden), access_token: connection.accessToken },
      }),
    delete: ({ connection, platformCommentId, signal }) =>
      deleteGraphObject(graph(signal), platformCommentId, connection.accessToken),
  });
}
