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
import { type GraphFailure, graphErrorOf } from '../meta/failure.ts';
import { graphClient } from '../meta/graph-api.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { CommentGone, commentCall, ownReply } from '../shared/comment-calls.ts';
import { asString, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import { facebookFailure } from './api.ts';
import { FACEBOOK_ENGAGEMENT_MANAGE_SCOPE } from './oauth.ts';
import type { FacebookSettings } from './settings.ts';

const FIELDS = 'id,message,from{id,name},created_time,is_hidden,parent{id}';
/** The most pages one read follows (100 comments each). */
const MAX_PAGES = 10;
/** Facebook's comment length. */
const COMMENT_MAX_LENGTH = 8_000;
const CLOCK_SKEW_MS = 60_000;

/** 100/33 or a bare 404: the object is not there (deleted); anything else as publishing reads it. */
const goneOr: GraphFailure = (status, body, text, headers) => {
  const error = graphErrorOf(body);
  if (error ? error.code === 100 && error.subcode === 33 : status === 404) {
    return new CommentGone(`Facebook: ${error?.message ?? `HTTP ${status}`}`);
  }
  return facebookFailure(status, body, text, headers);
};

function commentOf(item: unknown, pageId: string): PlatformComment | null {
  if (!isRecord(item)) return null;
  const id = asString(item.id);
  const from = isRecord(item.from) ? item.from : {};
  const authorId = asString(from.id);
  const created = Date.parse(
    (asString(item.created_time) ?? '').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'),
  );
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
  const graph = (signal: AbortSignal) =>
    graphClient(runtime, signal, {
      baseUrl: settings.apiBaseUrl,
      version: settings.graphVersion,
      label: 'Facebook',
      failure: goneOr,
    });

  /** The comments of an object (a post: all of them; a comment: its replies), newest first. */
  async function commentsOf(
    connection: PublishConnection,
    objectId: string,
    limit: number,
    signal: AbortSignal,
  ): Promise<PlatformComment[]> {
    const call = graph(signal);
    const found: PlatformComment[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
      const body = await call('GET', `/${encodeURIComponent(objectId)}/comments`, {
        query: {
          fields: FIELDS,
          filter: 'stream',
          order: 'reverse_chronological',
          limit: '100',
          access_token: connection.accessToken,
          ...(after ? { after } : {}),
        },
      });
      const data = Array.isArray(body.data) ? body.data : [];
      for (const item of data) {
        const comment = commentOf(item, connection.externalId);
        if (comment && found.length < limit) found.push(comment);
      }
      const paging = isRecord(body.paging) ? body.paging : {};
      const cursors = isRecord(paging.cursors) ? paging.cursors : {};
      after = paging.next ? asString(cursors.after) : undefined;
      if (!after) break;
    }
    return found;
  }

  return {
    scopes: ['pages_read_engagement', FACEBOOK_ENGAGEMENT_MANAGE_SCOPE],
    replyMaxLength: () => COMMENT_MAX_LENGTH,
    can: (comment) => ({ reply: true, hide: !comment.mine, delete: true }),
    cannot: () => 'a Page cannot hide its own comments (delete it instead)',
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
            `/${encodeURIComponent(platformCommentId)}/comments`,
            {
              query: { access_token: connection.accessToken },
              form: { message: text },
            },
          );
          const id = asString(body.id);
          if (!id) throw fail('invalid_response', 'Facebook reply gave no id', false);
          return {
            kind: 'sent' as const,
            comment: ownReply(id, platformCommentId, connection.externalId, text),
          };
        },
        { sends: true },
      ),
    findReply: ({ connection, platformCommentId, text, since, signal }) =>
      commentCall(signal, async () => {
        const from = since.getTime() - CLOCK_SKEW_MS;
        const replies = await commentsOf(connection, platformCommentId, 500, signal);
        const found = replies.find(
          (c) => c.mine && c.text === text && c.createdAt.getTime() >= from,
        );
        return found ? { kind: 'found' as const, comment: found } : { kind: 'not_found' as const };
      }),
    hide: ({ connection, platformCommentId, hidden, signal }) =>
      commentCall(signal, async () => {
        await graph(signal)('POST', `/${encodeURIComponent(platformCommentId)}`, {
          query: { access_token: connection.accessToken },
          form: { is_hidden: String(hidden) },
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
