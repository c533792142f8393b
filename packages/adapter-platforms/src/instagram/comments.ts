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
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import { type GraphFailure, graphErrorOf } from '../meta/failure.ts';
import { graphClient } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { CommentGone, commentCall, ownReply } from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import { graphFailure } from './api.ts';
import { INSTAGRAM_COMMENTS_SCOPE } from './oauth.ts';
import type { InstagramSettings } from './settings.ts';

const COMMENT_FIELDS = 'id,text,timestamp,username,hidden,from{id,username}';
const FIELDS = `${COMMENT_FIELDS},replies{${COMMENT_FIELDS}}`;
const MAX_PAGES = 10;
/** Instagram's comment length. */
const COMMENT_MAX_LENGTH = 2_200;
const CLOCK_SKEW_MS = 60_000;

const goneOr: GraphFailure = (status, body, text, headers) => {
  const error = graphErrorOf(body);
  if (error ? error.code === 100 && error.subcode === 33 : status === 404) {
    return new CommentGone(`Instagram: ${error?.message ?? `HTTP ${status}`}`);
  }
  return graphFailure(status, body, text, headers);
};

function commentOf(item: unknown, parent: string | null, ownId: string): PlatformComment | null {
  if (!isRecord(item)) return null;
  const id = asString(item.id);
  const from = isRecord(item.from) ? item.from : {};
  const authorId = asString(from.id);
  const created = Date.parse(
    (asString(item.timestamp) ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'),
  );
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

export function createInstagramCommentsClient(
  settings: InstagramSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  const graph = (signal: AbortSignal) =>
    graphClient(runtime, signal, {
      baseUrl: settings.apiBaseUrl,
      version: settings.graphVersion,
      label: 'Instagram',
      failure: goneOr,
    });

  async function commentsOf(
    connection: PublishConnection,
    mediaId: string,
    limit: number,
    signal: AbortSignal,
  ): Promise<PlatformComment[]> {
    const call = graph(signal);
    const found: PlatformComment[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
      const body = await call('GET', `/${encodeURIComponent(mediaId)}/comments`, {
        query: {
          fields: FIELDS,
          limit: '50',
          access_token: connection.accessToken,
          ...(after ? { after } : {}),
        },
      });
      for (const item of Array.isArray(body.data) ? body.data : []) {
        const top = commentOf(item, null, connection.externalId);
        if (!top) continue;
        const replies = isRecord(item) && isRecord(item.replies) ? item.replies.data : [];
        const nested = (Array.isArray(replies) ? replies : []).flatMap(
          (reply) => commentOf(reply, top.platformCommentId, connection.externalId) ?? [],
        );
        found.push(top, ...nested);
      }
      const paging = isRecord(body.paging) ? body.paging : {};
      const cursors = isRecord(paging.cursors) ? paging.cursors : {};
      after = paging.next ? asString(cursors.after) : undefined;
      if (!after) break;
    }
    return found.slice(0, limit);
  }

  return {
    scopes: [INSTAGRAM_COMMENTS_SCOPE],
    replyMaxLength: () => COMMENT_MAX_LENGTH,
    can: (comment) => ({
      reply: comment.parentPlatformId === null,
      hide: !comment.mine,
      delete: true,
    }),
    cannot: () => 'Instagram does not hide comments written by the account itself',
    list: ({ connection, platformPostId, limit, signal }) =>
      commentCall(signal, async () => ({
        kind: 'listed' as const,
        comments: await commentsOf(connection, platformPostId, limit, signal),
      })),
    reply: ({ connection, platformCommentId, text, signal }) =>
      commentCall(
        signal,
        async () => {
          const body = await graph(signal)(
            'POST',
            `/${encodeURIComponent(platformCommentId)}/replies`,
            { query: { access_token: connection.accessToken }, form: { message: text } },
          );
          const id = asString(body.id);
          if (!id) throw fail('invalid_response', 'Instagram reply gave no id', false);
          return {
            kind: 'sent' as const,
            comment: ownReply(id, platformCommentId, connection.externalId, text),
          };
        },
        { sends: true },
      ),
    findReply: ({ connection, platformCommentId, text, since, signal }) =>
      commentCall(signal, async () => {
        const body = await graph(signal)(
          'GET',
          `/${encodeURIComponent(platformCommentId)}/replies`,
          { query: { fields: COMMENT_FIELDS, access_token: connection.accessToken } },
        );
        const from = since.getTime() - CLOCK_SKEW_MS;
        const found = (Array.isArray(body.data) ? body.data : [])
          .map((item) => commentOf(item, platformCommentId, connection.externalId))
          .find((c) => c?.mine && c.text === text && c.createdAt.getTime() >= from);
        return found ? { kind: 'found' as const, comment: found } : { kind: 'not_found' as const };
      }),
    hide: ({ connection, platformCommentId, hidden, signal }) =>
      commentCall(signal, async () => {
        await graph(signal)('POST', `/${encodeURIComponent(platformCommentId)}`, {
          query: { hide: String(hidden), access_token: connection.accessToken },
        });
        return { kind: 'done' as const };
      }),
    delete: ({ connection, platformCommentId, signal }) =>
      commentCall(signal, async () => {
        await graph(signal)('DELETE', `/${encodeURIComponent(platformCommentId)}`, {
          query: { access_token: connection.accessToken },
        });
        return { kind: 'done' as const };
      }),
  };
}
