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
import type { PlatformComment, PlatformCommentsClient } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import {
  CommentGone,
  CommentsUnsupported,
  commentsClient,
  ownReplyAmong,
} from '../shared/comment-calls.ts';
import { asString, type HttpResult, isRecord } from '../shared/http.ts';
import { fail } from '../shared/outcome.ts';
import { youtubeFailure } from './failure.ts';
import { YOUTUBE_MANAGE_SCOPE } from './oauth.ts';
import type { YoutubeSettings } from './settings.ts';

const MAX_PAGES = 10;
/** YouTube's comment length. */
const COMMENT_MAX_LENGTH = 10_000;

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

/** 404 is CommentGone, 403 commentsDisabled CommentsUnsupported, anything else youtubeFailure. */
const commentsFailure = (response: HttpResult, what: string): Error => {
  if (response.status === 404) return new CommentGone(`${what}: HTTP 404 (not found)`);
  if (response.status === 403 && /commentsDisabled/.test(response.text)) {
    return new CommentsUnsupported(`${what}: comments are turned off for this video`);
  }
  return youtubeFailure(response);
};

export function createYoutubeCommentsClient(
  config: YoutubeSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  /** One Data API call with the connection's token. */
  const call = (
    token: string,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    query: Record<string, string>,
    signal: AbortSignal,
    json?: unknown,
  ): Promise<HttpResult> =>
    bearerClient(runtime, signal, {
      baseUrl: `${config.apiBaseUrl}/youtube/v3`,
      label: 'YouTube',
      failure: commentsFailure,
    })(method, `/${path}?${new URLSearchParams(query)}`, token, `${path} ${method}`, { json });

  return commentsClient({
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
    /** The video's comment threads, newest first: each top-level comment, then its replies. */
    async list({ connection, platformPostId: videoId, limit, signal }) {
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
        const answer = await call(connection.accessToken, 'GET', 'commentThreads', query, signal);
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
    },
    async reply({ connection, platformCommentId, text, signal }) {
      const answer = await call(
        connection.accessToken,
        'POST',
        'comments',
        { part: 'snippet' },
        signal,
        {
          snippet: { parentId: platformCommentId, textOriginal: text },
        },
      );
      const comment = commentOf(answer.json, connection.externalId);
      if (!comment) throw fail('invalid_response', 'YouTube reply gave no comment', false);
      return { ...comment, mine: true };
    },
    async findReply({ connection, platformCommentId, text, since, signal }) {
      const query = {
        part: 'snippet',
        parentId: platformCommentId,
        maxResults: '100',
        textFormat: 'plainText',
      };
      const answer = await call(connection.accessToken, 'GET', 'comments', query, signal);
      const body = isRecord(answer.json) ? answer.json : {};
      const replies = (Array.isArray(body.items) ? body.items : []).map((item) =>
        commentOf(item, connection.externalId),
      );
      return ownReplyAmong(replies, text, since);
    },
    hide: ({ connection, platformCommentId, hidden, signal }) => {
      const moderationStatus = hidden ? 'heldForReview' : 'published';
      const query = { id: platformCommentId, moderationStatus };
      return call(connection.accessToken, 'POST', 'comments/setModerationStatus', query, signal);
    },
    delete: ({ connection, platformCommentId, signal }) =>
      call(connection.accessToken, 'DELETE', 'comments', { id: platformCommentId }, signal),
  });
}
