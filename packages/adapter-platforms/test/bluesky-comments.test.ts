// The Bluesky comments client against the fake service: the replies under a published post
// read from getPostThread (nested ones with their parent, others' and ours told apart), a reply
// created with `reply: { root, parent }` under a key derived from the reply's key (asked twice,
// one record), found again by that key, a deleted post `gone`, own replies deleted.
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeBluesky,
  makeRequest,
  publisherFor,
  startFakeBluesky,
  testConfig,
} from './helpers.ts';

let fake: FakeBluesky;
let client: PlatformCommentsClient;
const config = () => testConfig({ bluesky: { serviceUrl: fake.baseUrl, rateLimit: 'off' } });
beforeAll(async () => {
  fake = await startFakeBluesky();
  const found = createPlatformRegistry(config()).commentsClient('bluesky');
  if (!found) throw new Error('no Bluesky comments client');
  client = found;
});
afterAll(() => fake.close());

const signal = () => new AbortController().signal;
const connection = (accessToken = fake.issueSession().accessJwt): PublishConnection => ({
  id: 'conn-1',
  platform: 'bluesky',
  externalId: fake.account.did,
  accessToken,
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
});

let unique = 0;
async function publishedPost(): Promise<string> {
  const session = fake.issueSession();
  const h = makeRequest({
    platform: 'bluesky',
    content: `Post #${++unique}`,
    externalId: fake.account.did,
    accessToken: session.accessJwt,
    refreshToken: session.refreshJwt,
  });
  return expectPublished(await publisherFor('bluesky', config()).publish(h.request)).platformPostId;
}

const list = (platformPostId: string, token?: string) =>
  client.list({
    connection: connection(token),
    platformPostId,
    since: null,
    limit: 100,
    signal: signal(),
  });

describe('Bluesky comments', () => {
  it('reads the replies of a post from its thread, nested ones with their parent', async () => {
    const postUri = await publishedPost();
    const first = fake.addReply(postUri, 'Great thread');
    const nested = fake.addReply(first.uri, 'Indeed');
    const answer = await list(postUri);
    expect(answer).toEqual({
      kind: 'listed',
      comments: [
        {
          platformCommentId: first.uri,
          parentPlatformId: null,
          author: { id: first.author.did, name: 'A Fan', handle: 'fan.bsky.social' },
          text: 'Great thread',
          createdAt: new Date(String(first.record.createdAt)),
          hidden: false,
          mine: false,
        },
        expect.objectContaining({ platformCommentId: nested.uri, parentPlatformId: first.uri }),
      ],
    });
    const asked = fake.requests.filter((r) => r.path === '/xrpc/app.bsky.feed.getPostThread');
    expect(asked.at(-1)?.query.uri).toBe(postUri);
  });

  it('replies with root and parent, once per key, and finds the reply again', async () => {
    const postUri = await publishedPost();
    const question = fake.addReply(postUri, 'How?');
    const intentAt = new Date();
    const ask = () =>
      client.reply({
        connection: connection(),
        platformPostId: postUri,
        platformCommentId: question.uri,
        text: 'Like this',
        idempotencyKey: '0190f0e5-0000-7000-8000-000000000001',
        intentAt,
        signal: signal(),
      });
    const sent = await ask();
    if (sent.kind !== 'sent') throw new Error(`not sent: ${JSON.stringify(sent)}`);
    expect((await ask()).kind).toBe('sent');
    const replies = fake.posts.filter(
      (p) => (p.record.reply as { parent?: { uri?: string } })?.parent?.uri === question.uri,
    );
    expect(replies).toHaveLength(1);
    expect(replies[0]?.record.reply).toEqual({
      root: { uri: postUri, cid: fake.posts.find((p) => p.uri === postUri)?.cid },
      parent: { uri: question.uri, cid: question.cid },
    });
    expect(sent.comment).toMatchObject({ platformCommentId: replies[0]?.uri, mine: true });
    const find = (key: string) =>
      client.findReply({
        connection: connection(),
        platformPostId: postUri,
        platformCommentId: question.uri,
        text: 'Like this',
        since: intentAt,
        idempotencyKey: key,
        signal: signal(),
      });
    expect(await find('0190f0e5-0000-7000-8000-000000000001')).toMatchObject({
      kind: 'found',
      comment: { platformCommentId: replies[0]?.uri },
    });
    expect(await find('0190f0e5-0000-7000-8000-000000000002')).toEqual({ kind: 'not_found' });
  });

  it('a post Bluesky does not know is gone; own replies are deleted', async () => {
    const postUri = await publishedPost();
    const missing = `at://${fake.account.did}/app.bsky.feed.post/3lnothere2222`;
    expect((await list(missing)).kind).toBe('gone');
    const question = fake.addReply(postUri, 'Hm');
    const sent = await client.reply({
      connection: connection(),
      platformPostId: postUri,
      platformCommentId: question.uri,
      text: 'Oops',
      idempotencyKey: '0190f0e5-0000-7000-8000-000000000003',
      intentAt: new Date(),
      signal: signal(),
    });
    if (sent.kind !== 'sent') throw new Error('not sent');
    const deleted = await client.delete?.({
      connection: connection(),
      platformPostId: postUri,
      platformCommentId: sent.comment.platformCommentId,
      signal: signal(),
    });
    expect(deleted).toEqual({ kind: 'done' });
    expect(fake.posts.some((p) => p.uri === sent.comment.platformCommentId)).toBe(false);
    expect(client.can({ mine: true, parentPlatformId: null })).toEqual({
      reply: true,
      hide: false,
      delete: true,
    });
    const token = fake.issueSession().accessJwt;
    fake.expireAccessToken(token);
    expect((await list(postUri, token)).kind).toBe('connection_expired');
  });
});
