// The X comments client against the fake X API: the replies of a published post found by the
// conversation search (authors from includes.users, nested ones with their parent, pages
// followed), a reply with reply.in_reply_to_tweet_id, an earlier reply found again among the
// author's posts, a reply to a deleted post `gone`, others' replies hidden (ours cannot be).
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeX,
  makeRequest,
  publisherFor,
  startFakeX,
  testConfig,
} from './helpers.ts';

let fake: FakeX;
let client: PlatformCommentsClient;
const config = () =>
  testConfig({
    twitter: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'x-client-id',
      clientSecret: 'x-client-secret',
    },
  });
beforeAll(async () => {
  fake = await startFakeX();
  const found = createPlatformRegistry(config()).commentsClient('twitter');
  if (!found) throw new Error('no X comments client');
  client = found;
});
afterAll(() => fake.close());

const signal = () => new AbortController().signal;
const connection = (): PublishConnection => ({
  id: 'conn-1',
  platform: 'twitter',
  externalId: fake.user.id,
  accessToken: 'x-user-token',
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
});

let unique = 0;
async function publishedPost(): Promise<string> {
  const h = makeRequest({
    platform: 'twitter',
    content: `Post number ${++unique}`,
    externalId: fake.user.id,
  });
  return expectPublished(await publisherFor('twitter', config()).publish(h.request)).platformPostId;
}
const list = (platformPostId: string, limit = 500) =>
  client.list({ connection: connection(), platformPostId, since: null, limit, signal: signal() });

describe('X comments', () => {
  it('finds the replies of a post by its conversation, pages followed', async () => {
    const postId = await publishedPost();
    const first = fake.addReply(postId, 'Me & you');
    const nested = fake.addReply(first.id, 'Indeed');
    const more = Array.from({ length: 120 }, (_, i) => fake.addReply(postId, `reply ${i}`));
    const answer = await list(postId);
    if (answer.kind !== 'listed') throw new Error(JSON.stringify(answer));
    expect(answer.comments).toHaveLength(122);
    expect(answer.comments.find((c) => c.platformCommentId === first.id)).toEqual({
      platformCommentId: first.id,
      parentPlatformId: null,
      author: { id: first.authorId, name: 'A Fan', handle: 'a_fan' },
      text: 'Me & you',
      createdAt: first.createdAt,
      hidden: false,
      mine: false,
    });
    expect(answer.comments.find((c) => c.platformCommentId === nested.id)?.parentPlatformId).toBe(
      first.id,
    );
    expect(answer.comments[0]?.platformCommentId).toBe(more.at(-1)?.id);
    const searches = fake.requests.filter((r) => r.path === '/2/tweets/search/recent');
    expect(searches.at(-1)?.query.query).toBe(`conversation_id:${postId}`);
    const limited = await list(postId, 5);
    expect(limited.kind === 'listed' && limited.comments.length).toBe(5);
  });

  it('replies to a comment, finds that reply again, and a reply to a deleted post is gone', async () => {
    const postId = await publishedPost();
    const question = fake.addReply(postId, 'When?');
    const since = new Date(Date.now() - 1_000);
    const request = {
      connection: connection(),
      platformPostId: postId,
      platformCommentId: question.id,
      text: 'Soon, at https://example.com',
      idempotencyKey: 'k-1',
      intentAt: since,
      signal: signal(),
    };
    const sent = await client.reply(request);
    if (sent.kind !== 'sent') throw new Error(JSON.stringify(sent));
    const posted = fake.tweets.find((t) => t.id === sent.comment.platformCommentId);
    expect(posted).toMatchObject({ replyTo: question.id, authorId: fake.user.id });
    expect(await client.findReply({ ...request, since })).toMatchObject({
      kind: 'found',
      comment: { platformCommentId: posted?.id },
    });
    expect(await client.findReply({ ...request, text: 'Never', since })).toEqual({
      kind: 'not_found',
    });
    const gone = await client.reply({ ...request, platformCommentId: '1999999999999999999' });
    expect(gone.kind).toBe('gone');
  });

  it("hides others' replies; ours cannot be hidden", async () => {
    const postId = await publishedPost();
    const rude = fake.addReply(postId, 'Rude');
    const hide = (hidden: boolean) =>
      client.hide?.({
        connection: connection(),
        platformPostId: postId,
        platformCommentId: rude.id,
        hidden,
        signal: signal(),
      });
    expect(await hide(true)).toEqual({ kind: 'done' });
    expect(fake.hidden.has(rude.id)).toBe(true);
    expect(await hide(false)).toEqual({ kind: 'done' });
    expect(fake.hidden.has(rude.id)).toBe(false);
    const put = fake.requests.filter((r) => r.path === `/2/tweets/${rude.id}/hidden`);
    expect(put.at(-1)).toMatchObject({ method: 'PUT', body: { hidden: false } });
    expect(client.can({ mine: true, parentPlatformId: null }).hide).toBe(false);
    expect(client.can({ mine: false, parentPlatformId: null }).hide).toBe(true);
  });
});
