// The comments under published Facebook Page posts (docs/platforms.md#facebook;
// developers.facebook.com "Graph API: /{object-id}/comments", "Comment"), as the Page, its
// token in the query:
// - read: GET /{post-id}/comments?filter=stream&order=reverse_chronological with `from`,
//   `created_time`, `is_hidden` and `parent` (a reply to a comment names it), pages of 100;
// - reply: POST /{comment-id}/comments `message`; an earlier reply is looked for in the same
//   edge (the Page's, that text, since the attempt);
// - hide: POST /{comment-id} `is_hidden` (others' comments; the Page's own cannot be hidden);
// - delete: DELETE /{comment-id} (the Page deletes any comment under its posts).
// Reading needs pages_read_engagement, moderating pages_manage_engagement (both asked for at
// connect). Graph's 100/33 ("does not exist") is a comment or post deleted meanwhile: gone.
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import { graphCommentCalls, graphTime, readGraphPages } from '../meta/comments.ts';
import { deleteGraphObject } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { commentsClient, ownReplyAmong, sentReply } from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { facebookFailure } from './api.ts';
import { FACEBOOK_ENGAGEMENT_MANAGE_SCOPE } from './oauth.ts';
import type { FacebookSettings } from './settings.ts';

const FIELDS = 'id,message,from{id,name},created_time,is_hidden,parent{id}';
/** Facebook's comment length. */
const COMMENT_MAX_LENGTH = 8_000;

function commentOf(item: unknown, pageId: string): PlatformComment | null {
  if (!isRecord(item)) return null;
  const id = asString(item.id);
  const from = isRecord(item.from) ? item.from : {};
  const authorId = asString(from.id);
  const created = graphTime(item.created_time);
  if (!id || !authorId || !Number.isFinite(created)) return null;
  const parent = isRecord(item.parent) ? asString(item.parent.id) : undefined;
  return {
    platformCommentId: id,
    parentPlatformId: parent ?? null,
    author: { id: authorId, name: asString(from.name) ?? null, handle: null },
    text: asString(item.message) ?? '',
    createdAt: new Date(created),
    hidden: item.is_hidden === true,
    mine: authorId === pageId,
  };
}

export function createFacebookCommentsClient(
  settings: FacebookSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  const graph = graphCommentCalls(runtime, {
    baseUrl: settings.apiBaseUrl,
    version: settings.graphVersion,
    label: 'Facebook',
    failure: facebookFailure,
  });

  /** The comments of an object (a post: all of them; a comment: its replies), newest first. */
  const commentsOf = (
    connection: PublishConnection,
    objectId: string,
    limit: number,
    signal: AbortSignal,
  ): Promise<PlatformComment[]> => {
    const query = {
      fields: FIELDS,
      filter: 'stream',
      order: 'reverse_chronological',
      limit: '100',
      access_token: connection.accessToken,
    };
    return readGraphPages(
      graph(signal),
      `/${encodeURIComponent(objectId)}/comments`,
      query,
      limit,
      (item) => commentOf(item, connection.externalId) ?? [],
    );
  };

  return commentsClient({
    scopes: ['pages_read_engagement', FACEBOOK_ENGAGEMENT_MANAGE_SCOPE],
    replyMaxLength: () => COMMENT_MAX_LENGTH,
    can: (comment) => ({ reply: true, hide: !comment.mine, delete: true }),
    cannot: () => 'a Page cannot hide its own comments (delete it instead)',
    list: ({ connection, platformPostId, limit, signal }) =>
      commentsOf(connection, platformPostId, limit, signal),
    async reply({ connection, platformCommentId, text, signal }) {
      const body = await graph(signal)(
        'POST',
        `/${encodeURIComponent(platformCommentId)}/comments`,
        {
          query: { access_token: connection.accessToken },
          form: { message: text },
        },
      );
      const id = asString(body.id);
      return sentReply('Facebook', id, platformCommentId, connection.externalId, text);
    },
    async findReply({ connection, platformCommentId, text, since, signal }) {
      const replies = await commentsOf(connection, platformCommentId, 500, signal);
      return ownReplyAmong(replies, text, since);
    },
    hide: ({ connection, platformCommentId, hidden, signal }) =>
      graph(signal)('POST', `/${encodeURIComponent(platformCommentId)}`, {
        query: { access_token: connection.accessToken },
        form: { is_hidden: String(hidden) },
      }),
    delete: ({ connection, platformCommentId, signal }) =>
      deleteGraphObject(graph(signal), platformCommentId, connection.accessToken),
  });
}
