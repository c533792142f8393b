// The comments under published Instagram media (docs/platforms.md#instagram;
// developers.facebook.com "Instagram API with Instagram Login: Comment Moderation"), the token
// in the query:
// - read: GET /{ig-media-id}/comments with `from`, `timestamp`, `hidden` and the `replies` of
//   each top-level comment (Instagram nests one level), pages of 50;
// - reply: POST /{ig-comment-id}/replies `message`, to top-level comments only (Instagram has no
//   replies to replies); an earlier reply is looked for in GET /{ig-comment-id}/replies;
// - hide: POST /{ig-comment-id}?hide= (others' comments); delete: DELETE /{ig-comment-id}.
// All of it needs instagram_business_manage_comments, asked for at connect. Graph's 100/33
// ("does not exist") is a comment or media deleted meanwhile: gone.
import type { PlatformComment, PlatformCommentsClient } from '@social-publisher/domain';
import { graphCommentCalls, graphTime, readGraphPages } from '../meta/comments.ts';
import { deleteGraphObject } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { commentsClient, ownReplyAmong, sentReply } from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { graphFailure } from './api.ts';
import { INSTAGRAM_COMMENTS_SCOPE } from './oauth.ts';
import type { InstagramSettings } from './settings.ts';

const COMMENT_FIELDS = 'id,text,timestamp,username,hidden,from{id,username}';
const FIELDS = `${COMMENT_FIELDS},replies{${COMMENT_FIELDS}}`;
/** Instagram's comment length. */
const COMMENT_MAX_LENGTH = 2_200;

function commentOf(item: unknown, parent: string | null, ownId: string): PlatformComment | null {
  if (!isRecord(item)) return null;
  const id = asString(item.id);
  const from = isRecord(item.from) ? item.from : {};
  const authorId = asString(from.id);
  const created = graphTime(item.timestamp);
  if (!id || !authorId || !Number.isFinite(created)) return null;
  const handle = asString(from.username) ?? asString(item.username) ?? null;
  return {
    platformCommentId: id,
    parentPlatformId: parent,
    author: { id: authorId, name: null, handle },
    text: asString(item.text) ?? '',
    createdAt: new Date(created),
    hidden: item.hidden === true,
    mine: authorId === ownId,
  };
}

/** A top-level comment followed by the replies Instagram nests in it (none when unreadable). */
function threadOf(item: unknown, ownId: string): PlatformComment[] {
  const top = commentOf(item, null, ownId);
  if (!top) return [];
  const replies = isRecord(item) && isRecord(item.replies) ? item.replies.data : [];
  const nested = (Array.isArray(replies) ? replies : []).flatMap(
    (reply) => commentOf(reply, top.platformCommentId, ownId) ?? [],
  );
  return [top, ...nested];
}

export function createInstagramCommentsClient(
  settings: InstagramSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  const graph = graphCommentCalls(runtime, {
    baseUrl: settings.apiBaseUrl,
    version: settings.graphVersion,
    label: 'Instagram',
    failure: graphFailure,
  });

  return commentsClient({
    scopes: [INSTAGRAM_COMMENTS_SCOPE],
    replyMaxLength: () => COMMENT_MAX_LENGTH,
    can: (comment) => ({
      reply: comment.parentPlatformId === null,
      hide: !comment.mine,
      delete: true,
    }),
    cannot: () => 'Instagram does not hide comments written by the account itself',
    list({ connection, platformPostId, limit, signal }) {
      const query = { fields: FIELDS, limit: '50', access_token: connection.accessToken };
      const path = `/${encodeURIComponent(platformPostId)}/comments`;
      return readGraphPages(graph(signal), path, query, limit, (item) =>
        threadOf(item, connection.externalId),
      );
    },
    async reply({ connection, platformCommentId, text, signal }) {
      const body = await graph(signal)(
        'POST',
        `/${encodeURIComponent(platformCommentId)}/replies`,
        {
          query: { access_token: connection.accessToken },
          form: { message: text },
        },
      );
      const id = asString(body.id);
      return sentReply('Instagram', id, platformCommentId, connection.externalId, text);
    },
    async findReply({ connection, platformCommentId, text, since, signal }) {
      const body = await graph(signal)('GET', `/${encodeURIComponent(platformCommentId)}/replies`, {
        query: { fields: COMMENT_FIELDS, access_token: connection.accessToken },
      });
      const replies = (Array.isArray(body.data) ? body.data : []).map((item) =>
        commentOf(item, platformCommentId, connection.externalId),
      );
      return ownReplyAmong(replies, text, since);
    },
    hide: ({ connection, platformCommentId, hidden, signal }) =>
      graph(signal)('POST', `/${encodeURIComponent(platformCommentId)}`, {
        query: { hide: String(hidden), access_token: connection.accessToken },
      }),
    delete: ({ connection, platformCommentId, signal }) =>
      deleteGraphObject(graph(signal), platformCommentId, connection.accessToken),
  });
}
