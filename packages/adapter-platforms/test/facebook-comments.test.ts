// The Facebook comments client against the fake Graph API, as the Page: the comments of a
// published post (others' and the Page's own, replies with their parent), a reply under a
// comment, that reply found again, others' comments hidden and shown, a comment deleted, and a
// deleted one `gone` (100/33).
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeFacebook,
  makeRequest,
  publisherFor,
  startFakeFacebook,
  testConfig,
} from './helpers.ts';

const PAGE = '102000000000001';
let fake: FakeFacebook;
let client: PlatformCommentsClient;
const config = () => testConfig({ facebook: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' } });
beforeAll(async () => {
  fake = await startFakeFacebook({ strictTokens: true });
  fake.pageTokens.set('page-token', PAGE);
  const found = createPlatformRegistry(config()).commentsClient('facebook');
  if (!found) throw new Error('no Facebook comments client');
  client = found;
});
afterAll(() => fake.close());

const signal = () => new AbortController().signal;
const connection: PublishConnection = {
  id: 'conn-1',
  platform: 'facebook',
  externalId: PAGE,
  accessToken: 'page-token',
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
};
let unique = 0;
async function publishedPost(): Promise<string> {
  const h = makeRequest({
    platform: 'facebook',
    content: `Talk to us #${++unique}`,
    externalId: PAGE,
    accessToken: 'page-token',
    refreshToken: null,
  });
  return expectPublished(await publisherFor('facebook', config()).publish(h.request))
    .platformPostId;
}
const ref = (postId: string, commentId: string) => ({
  connection,
  platformPostId: postId,
  platformCommentId: commentId,
  signal: signal(),
});

describe('Facebook comments', () => {
  it('reads the comments of a post, replies with their parent, newest first', async () => {
    const postId = await publishedPost();
    const first = fake.addComment(postId, 'Love it');
    const answer = fake.addComment(first.id, 'Me too');
    const listed = await client.list({
      connection,
      platformPostId: postId,
      since: null,
      limit: 100,
      signal: signal(),
    });
    expect(listed).toEqual({
      kind: 'listed',
      comments: [
        expect.objectContaining({ platformCommentId: answer.id, parentPlatformId: first.id }),
        {
          platformCommentId: first.id,
          parentPlatformId: null,
          author: { id: '10000000000000099', name: 'A Fan', handle: null },
          text: 'Love it',
          createdAt: new Date(Math.floor((first.createdAt?.getTime() ?? 0) / 1000) * 1000),
          hidden: false,
          mine: false,
        },
      ],
    });
    const asked = fake.requests.filter((r) => r.path === `/v21.0/${postId}/comments`).at(-1);
    expect(asked?.query).toMatchObject({ filter: 'stream', access_token: 'page-token' });
  });

  it('replies under a comment as the Page, and finds that reply again', async () => {
    const postId = await publishedPost();
    const question = fake.addComment(postId, 'Open on Sunday?');
    const since = new Date(Date.now() - 2_000);
    const sent = await client.reply({
      ...ref(postId, question.id),
      text: 'Yes, from 10',
      idempotencyKey: 'k',
      intentAt: since,
    });
    if (sent.kind !== 'sent') throw new Error(JSON.stringify(sent));
    expect(fake.comments.find((c) => c.id === sent.comment.platformCommentId)).toMatchObject({
      parentId: question.id,
      message: 'Yes, from 10',
    });
    const find = (text: string) =>
      client.findReply({ ...ref(postId, question.id), text, since, idempotencyKey: 'k' });
    expect(await find('Yes, from 10')).toMatchObject({
      kind: 'found',
      comment: { platformCommentId: sent.comment.platformCommentId, mine: true },
    });
    expect(await find('No')).toEqual({ kind: 'not_found' });
  });

  it("hides others' comments, deletes one, and a deleted one is gone", async () => {
    const postId = await publishedPost();
    const rude = fake.addComment(postId, 'Rude');
    expect(await client.hide?.({ ...ref(postId, rude.id), hidden: true })).toEqual({
      kind: 'done',
    });
    expect(fake.comments.find((c) => c.id === rude.id)?.hidden).toBe(true);
    expect(client.can({ mine: true, parentPlatformId: null }).hide).toBe(false);
    expect(await client.delete?.(ref(postId, rude.id))).toEqual({ kind: 'done' });
    expect(fake.comments.some((c) => c.id === rude.id)).toBe(false);
    expect((await client.delete?.(ref(postId, rude.id)))?.kind).toBe('gone');
    const reply = await client.reply({
      ...ref(postId, rude.id),
      text: 'Too late',
      idempotencyKey: 'k2',
      intentAt: new Date(),
    });
    expect(reply.kind).toBe('gone');
  });
});
