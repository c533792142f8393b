// The replies under published X posts (docs/platforms.md#x; docs.x.com "Search Posts",
// "Manage Posts", "Hide replies"):
// - read: GET /2/tweets/search/recent?query=conversation_id:ID (the last 7 days, X's recent
//   search), pages of 100 followed by `next_token`, the authors under `includes.users`; a
//   reply's parent is its `referenced_tweets` `replied_to`;
// - reply: POST /2/tweets with `reply.in_reply_to_tweet_id`; X answers a reply to a post it
//   deleted (or hides from us) with 403 "deleted or not visible": gone;
// - a reply an earlier attempt may have posted is looked for among the author's posts since the
//   attempt (GET /2/users/:id/tweets, as the publisher's resume does), by its text as X shows it;
// - hide: PUT /2/tweets/:id/hidden `{ hidden }`, for replies by others in a conversation the
//   account started (X asks for tweet.moderate.write). Deleting comments is not offered here.
import type {
  PlatformComment,
  PlatformCommentsClient,
  PublishConnection,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { bearerClient } from '../shared/bearer-call.ts';
import { CommentGone, commentsClient, recentAsReply, sentReply } from '../shared/comment-calls.ts';
import { asString, type HttpResult, isRecord } from '../shared/http.ts';
import { createXApi, xFailure } from './api.ts';
import type { TwitterSettings } from './settings.ts';
import { comparableText, X_MAX_WEIGHTED_LENGTH } from './text.ts';

/** The most pages one read follows (100 replies each). */
const MAX_PAGES = 10;
const SEARCH_FIELDS = {
  'tweet.fields': 'author_id,created_at,conversation_id,referenced_tweets',
  expansions: 'author_id',
  'user.fields': 'name,username',
};

/** A 403 on a reply: the post answered was deleted, or X will not show it to us. */
const replyGone = (response: HttpResult, what: string): Error => {
  const error = xFailure(response, what);
  return response.status === 403 && /deleted or not visible/i.test(error.message)
    ? new CommentGone(error.message)
    : error;
};

function commentOf(
  tweet: Record<string, unknown>,
  postId: string,
  users: Map<string, Record<string, unknown>>,
  ownId: string,
): PlatformComment | null {
  const id = asString(tweet.id);
  const authorId = asString(tweet.author_id);
  const created = Date.parse(asString(tweet.created_at) ?? '');
  if (!id || !authorId || !Number.isFinite(created)) return null;
  const refs = Array.isArray(tweet.referenced_tweets)
    ? tweet.referenced_tweets.filter(isRecord)
    : [];
  const parent = asString(refs.find((ref) => ref.type === 'replied_to')?.id);
  const author = users.get(authorId) ?? {};
  return {
    platformCommentId: id,
    parentPlatformId: !parent || parent === postId ? null : parent,
    author: {
      id: authorId,
      name: asString(author.name) ?? null,
      handle: asString(author.username) ?? null,
    },
    text: comparableText(asString(tweet.text) ?? ''),
    createdAt: new Date(created),
    hidden: false,
    mine: authorId === ownId,
  };
}

export function createTwitterCommentsClient(
  config: TwitterSettings,
  runtime: PublisherRuntime,
): PlatformCommentsClient {
  const client = (signal: AbortSignal) =>
    bearerClient(runtime, signal, { baseUrl: config.apiBaseUrl, label: 'X', failure: xFailure });

  /** The conversation's replies, newest first, at most `limit`. */
  async function conversation(
    connection: PublishConnection,
    postId: string,
    limit: number,
    signal: AbortSignal,
  ): Promise<PlatformComment[]> {
    const call = client(signal);
    const found: PlatformComment[] = [];
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES && found.length < limit; page++) {
      const query = new URLSearchParams({
        query: `conversation_id:${postId}`,
        max_results: '100',
        ...SEARCH_FIELDS,
        ...(token ? { next_token: token } : {}),
      });
      const answer = await call(
        'GET',
        `/2/tweets/search/recent?${query}`,
        connection.accessToken,
        'conversation search',
      );
      const body = isRecord(answer.json) ? answer.json : {};
      const includes = isRecord(body.includes) ? body.includes : {};
      const users = new Map(
        (Array.isArray(includes.users) ? includes.users.filter(isRecord) : []).map((u) => [
          asString(u.id) ?? '',
          u,
        ]),
      );
      const data = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
      for (const tweet of data) {
        const comment = commentOf(tweet, postId, users, connection.externalId);
        if (comment && found.length < limit) found.push(comment);
      }
      token = isRecord(body.meta) ? asString(body.meta.next_token) : undefined;
      if (!token) break;
    }
    return found;
  }

  return commentsClient({
    scopes: ['tweet.read', 'users.read'],
    replyMaxLength: () => X_MAX_WEIGHTED_LENGTH,
    can: (comment) => ({ reply: true, hide: !comment.mine, delete: false }),
    cannot: (action) =>
      action === 'hide'
        ? 'X hides only replies by others in a conversation you started'
        : 'deleting replies on X is not offered here',
    list: ({ connection, platformPostId, limit, signal }) =>
      conversation(connection, platformPostId, limit, signal),
    async reply({ connection, platformCommentId, text, signal }) {
      const answer = await client(signal)('POST', '/2/tweets', connection.accessToken, 'reply', {
        json: { text, reply: { in_reply_to_tweet_id: platformCommentId } },
        failure: replyGone,
      });
      const data = isRecord(answer.json) && isRecord(answer.json.data) ? answer.json.data : {};
      return sentReply('X', asString(data.id), platformCommentId, connection.externalId, text);
    },
    async findReply(request) {
      const { connection, since, signal } = request;
      const api = createXApi(config, runtime, signal);
      const recent = await api.recentTweets(
        connection.accessToken,
        connection.externalId,
        since.getTime(),
      );
      const wanted = comparableText(request.text);
      return recentAsReply(
        recent.find((tweet) => comparableText(tweet.text) === wanted),
        request,
      );
    },
    hide: ({ connection, platformCommentId, hidden, signal }) => {
      const path = `/2/tweets/${encodeURIComponent(platformCommentId)}/hidden`;
      return client(signal)('PUT', path, connection.accessToken, 'hide reply', {
        json: { hidden },
        failure: (response, what) =>
          response.status === 404
            ? new CommentGone(`${what}: not found`)
            : xFailure(response, what),
      });
    },
  });
}
