// The comments under published YouTube videos (docs/platforms.md#youtube; developers.google.com
// "CommentThreads: list", "Comments: insert", "Comments: list", "Comments: setModerationStatus",
// "Comments: delete"), the connection's token as a bearer:
// - read: GET /youtube/v3/commentThreads?part=snippet,replies&videoId= (newest first, pages of
//   100 followed by `nextPageToken`), each thread's top-level comment and its replies;
// - reply: POST /youtube/v3/comments?part=snippet `{ snippet: { parentId, textOriginal } }`, to
//   a top-level comment (YouTube threads are one level deep); an earlier reply is looked for in
//   GET /youtube/v3/comments?parentId= (the channel's, that text, since the attempt);
// - hide: comments.setModerationStatus heldForReview (shown again: published), for others'
//   comments; delete: DELETE /youtube/v3/comments?id=, the channel's own comments only.
// Each call costs quota (list 1 unit, insert, moderate and delete 50). youtube.force-ssl, asked
// for at connect, covers all of it. 404 (videoNotFound, commentNotFound) is gone; 403
// commentsDisabled is a video whose comments are off.
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { CommentGone, commentCall } from '../shared/comment-calls.ts';
import { asString, type HttpResult, httpCall, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import { youtubeFailure } from './api.ts';
import { YOUTUBE_MANAGE_SCOPE } from './oauth.ts';
import type { YoutubeSettings } from './settings.ts';

const MAX_PAGES = 10;
/** YouTube's comment length. */
const COMMENT_MAX_LENGTH = 10_000;
const CLOCK_SKEW_MS = 60_000;

class CommentsDisabled extends Error {}

function commentOf(resource: unknown, ownChannel: string): PlatformComment | null {
  if (!isRecord(resource) || !isRecord(resource.snippet)) return null;
  const snippet = resource.snippet;
  const id = asString(resource.id);
  const author = isRecord(snippet.authorChannelId) ? asString(snippet.authorChannelId.value) : '';
  const created = Date.parse(asString(snippet.publishedAt) ?? '');
  if (!id || !Number.isFinite(created)) return null;
  return {
    platformCommentId: id,
    parentPlatformId: asString(snippet.parentId) ?? null,
    author: { id: author ?? '', name: asString(snippet.authorDisplayName) ?? null, handle: null },
    text: asString(snippet.textOriginal) ?? asString(snippet.textDisplay) ?? '',
    createdAt: new Date(created),
    hidden: snippet.moderationStatus === 'heldForReview' || snippet.moderationStatus === 'rejected',
    mine: author === ownChannel,
  };
}

export function createYoutubeCommentsClient(
  config: YoutubeSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  /** One Data API call; 404 is CommentGone, 403 commentsDisabled its own error. */
  async function call(
    connection: PublishConnection,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    query: Record<string, string>,
    signal: AbortSignal,
    json?: unknown,
  ): Promise<HttpResult> {
    const url = new URL(`${config.apiBaseUrl}/youtube/v3/${path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const what = `YouTube ${path} ${method}`;
    const response = await httpCall(
      {
        url,
        method,
        headers: {
          authorization: `Bearer ${connection.accessToken}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: json === undefined ? null : JSON.stringify(json),
        dispatcher: runtime.apiDispatcher,
        signal,
        timeoutMs: runtime.requestTimeoutMs,
      },
      what,
    );
    if (response.status >= 200 && response.status < 300) return response;
    if (response.status === 404) throw new CommentGone(`${what}: HTTP 404 (not found)`);
    if (response.status === 403 && /commentsDisabled/.test(response.text)) {
      throw new CommentsDisabled(`${what}: comments are turned off for this video`);
    }
    throw youtubeFailure(response);
  }

  async function threads(
    connection: PublishConnection,
    videoId: string,
    limit: number,
    signal: AbortSignal,
  ): Promise<PlatformComment[]> {
    const found: PlatformComment[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
      const query = {
        part: 'snippet,replies',
        videoId,
        maxResults: '100',
        order: 'time',
        textFormat: 'plainText',
        ...(pageToken ? { pageToken } : {}),
      };
      const answer = await call(connection, 'GET', 'commentThreads', query, signal);
      const body = isRecord(answer.json) ? answer.json : {};
      for (const thread of Array.isArray(body.items) ? body.items.filter(isRecord) : []) {
        const snippet = isRecord(thread.snippet) ? thread.snippet : {};
        const top = commentOf(snippet.topLevelComment, connection.externalId);
        if (top) found.push(top);
        const replies = isRecord(thread.replies) ? thread.replies.comments : [];
        for (const reply of Array.isArray(replies) ? replies : []) {
          const comment = commentOf(reply, connection.externalId);
          if (comment) found.push(comment);
        }
      }
      pageToken = asString(body.nextPageToken);
      if (!pageToken) break;
    }
    return found.slice(0, limit);
  }

  return {
    scopes: [YOUTUBE_MANAGE_SCOPE],
    replyMaxLength: () => COMMENT_MAX_LENGTH,
    can: (comment) => ({
      reply: comment.parentPlatformId === null,
      hide: !comment.mine,
      delete: comment.mine,
    }),
    cannot: (action) =>
      action === 'hide'
        ? 'YouTube holds for review only comments by others'
        : "YouTube deletes only the channel's own comments (hide the others)",
    list: ({ connection, platformPostId, limit, signal }) =>
      commentCall(signal, async () => {
        try {
          const comments = await threads(connection, platformPostId, limit, signal);
          return { kind: 'listed' as const, comments };
        } catch (error) {
          if (!(error instanceof CommentsDisabled)) throw error;
          return { kind: 'unsupported' as const, message: error.message };
        }
      }),
    reply: ({ connection, platformCommentId, text, signal }) =>
      commentCall(
        signal,
        async () => {
          const answer = await call(connection, 'POST', 'comments', { part: 'snippet' }, signal, {
            snippet: { parentId: platformCommentId, textOriginal: text },
          });
          const comment = commentOf(answer.json, connection.externalId);
          if (!comment) throw fail('invalid_response', 'YouTube reply gave no comment', false);
          return { kind: 'sent' as const, comment: { ...comment, mine: true } };
        },
        { sends: true },
      ),
    findReply: ({ connection, platformCommentId, text, since, signal }) =>
      commentCall(signal, async () => {
        const query = {
          part: 'snippet',
          parentId: platformCommentId,
          maxResults: '100',
          textFormat: 'plainText',
        };
        const answer = await call(connection, 'GET', 'comments', query, signal);
        const body = isRecord(answer.json) ? answer.json : {};
        const from = since.getTime() - CLOCK_SKEW_MS;
        const found = (Array.isArray(body.items) ? body.items : [])
          .map((item) => commentOf(item, connection.externalId))
          .find((c) => c?.mine && c.text === text && c.createdAt.getTime() >= from);
        return found ? { kind: 'found' as const, comment: found } : { kind: 'not_found' as const };
      }),
    hide: ({ connection, platformCommentId, hidden, signal }) =>
      commentCall(signal, async () => {
        const moderationStatus = hidden ? 'heldForReview' : 'published';
        await call(
          connection,
          'POST',
          'comments/setModerationStatus',
          { id: platformCommentId, moderationStatus },
          signal,
        );
        return { kind: 'done' as const };
      }),
    delete: ({ connection, platformCommentId, signal }) =>
      commentCall(signal, async () => {
        await call(connection, 'DELETE', 'comments', { id: platformCommentId }, signal);
        return { kind: 'done' as const };
      }),
  };
}
