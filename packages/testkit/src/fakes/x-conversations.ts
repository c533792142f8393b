// The conversations half of the fake X API v2: replies by other users (`addReply`, what a test
// makes others write), GET /2/tweets/search/recent?query=conversation_id:ID answering the
// replies of a conversation newest first with `author_id`, `conversation_id`, `created_at`,
// `referenced_tweets` and the authors under `includes.users` (pages of `max_results`, 10-100,
// and `next_token`), and PUT /2/tweets/:id/hidden `{ hidden }` (a reply in a conversation the
// user started; `{ data: { hidden } }`). Only `conversation_id:<id>` queries are understood.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { XTweet } from './x-posts.ts';

export interface XUser {
  id: string;
  name: string;
  username: string;
}

const FAN: XUser = { id: '1460000000000000099', name: 'A Fan', username: 'a_fan' };

const problem = (status: number, title: string, detail: string) => ({
  title,
  detail,
  type: 'about:blank',
  status,
});

export function createXConversations(tweets: XTweet[], me: () => XUser) {
  const users = new Map<string, XUser>([[FAN.id, FAN]]);
  const hidden = new Set<string>();
  let sequence = 0;

  /** The first post of the conversation `tweet` is in. */
  const rootOf = (tweet: XTweet): string => {
    let current = tweet;
    for (let hops = 0; current.replyTo !== null && hops < 1_000; hops++) {
      const parent = tweets.find((candidate) => candidate.id === current.replyTo);
      if (!parent) break;
      current = parent;
    }
    return current.id;
  };

  /** Another user answers the post `replyTo`. */
  function addReply(replyTo: string, text: string, author: XUser = FAN): XTweet {
    users.set(author.id, author);
    sequence += 1;
    const tweet: XTweet = {
      id: String(1_870_000_000_000_000_000n + BigInt(sequence)),
      authorId: author.id,
      text,
      mediaIds: [],
      replyTo,
      createdAt: new Date(),
      shown: text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
    };
    tweets.push(tweet);
    return tweet;
  }

  function search(response: ServerResponse, query: URLSearchParams) {
    const conversation = /^conversation_id:(\d+)$/.exec(query.get('query') ?? '')?.[1];
    const max = Number(query.get('max_results') ?? 10);
    if (!conversation || !Number.isInteger(max) || max < 10 || max > 100) {
      return sendJson(response, 400, {
        ...problem(400, 'Invalid Request', 'One or more parameters to your request was invalid.'),
        errors: [{ message: 'query or max_results is invalid' }],
      });
    }
    const all = tweets
      .filter((tweet) => tweet.id !== conversation && tweet.replyTo !== null)
      .filter((tweet) => rootOf(tweet) === conversation)
      .reverse();
    const start = Number(query.get('next_token') ?? 0) || 0;
    const page = all.slice(start, start + max);
    const data = page.map((tweet) => ({
      id: tweet.id,
      text: tweet.shown,
      author_id: tweet.authorId,
      conversation_id: conversation,
      created_at: tweet.createdAt.toISOString(),
      referenced_tweets: [{ type: 'replied_to', id: tweet.replyTo }],
    }));
    const authors = [...new Set(page.map((tweet) => tweet.authorId))].map((id) =>
      id === me().id ? me() : (users.get(id) ?? { id, name: 'Someone', username: `user_${id}` }),
    );
    const next = start + max < all.length ? { next_token: String(start + max) } : {};
    sendJson(
      response,
      200,
      data.length === 0
        ? { meta: { result_count: 0 } }
        : { data, includes: { users: authors }, meta: { result_count: data.length, ...next } },
    );
  }

  function hide(response: ServerResponse, id: string, body: unknown) {
    const tweet = tweets.find((candidate) => candidate.id === id);
    const wanted = (body as { hidden?: unknown } | null)?.hidden;
    if (typeof wanted !== 'boolean') {
      return sendJson(response, 400, problem(400, 'Invalid Request', '`hidden` is required'));
    }
    if (!tweet)
      return sendJson(response, 404, problem(404, 'Not Found Error', 'Could not find tweet'));
    const root = tweets.find((candidate) => candidate.id === rootOf(tweet));
    if (tweet.replyTo === null || root?.authorId !== me().id) {
      return sendJson(
        response,
        403,
        problem(403, 'Forbidden', 'You can only hide replies to conversations you started.'),
      );
    }
    if (wanted) hidden.add(id);
    else hidden.delete(id);
    sendJson(response, 200, { data: { hidden: wanted } });
  }

  /** Serves a conversations route; false when `url` is not one. */
  function handle(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    body: unknown,
  ): boolean {
    if (url.pathname === '/2/tweets/search/recent' && request.method === 'GET') {
      search(response, url.searchParams);
      return true;
    }
    const hiding = /^\/2\/tweets\/(\d+)\/hidden$/.exec(url.pathname)?.[1];
    if (hiding && request.method === 'PUT') {
      hide(response, hiding, body);
      return true;
    }
    return false;
  }

  return { addReply, hidden, handle };
}
