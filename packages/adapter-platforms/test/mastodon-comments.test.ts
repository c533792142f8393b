// The Mastodon comments client against the fake instance: the replies under a published status
// read from its context (others' and ours told apart, HTML as text, the parent kept), a reply
// posted with in_reply_to_id and an Idempotency-Key (the same key never makes a second), an
// earlier reply found again, a deleted status `gone`, own statuses deleted, refusals mapped.
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeMastodon,
  makeRequest,
  publisherFor,
  startFakeMastodon,
  testConfig,
} from './helpers.ts';

let fake: FakeMastodon;
let client: PlatformCommentsClient;
beforeAll(async () => {
  fake = await startFakeMastodon({ maxCharacters: 600 });
  const found = createPlatformRegistry(testConfig()).commentsClient('mastodon');
  if (!found) throw new Error('no Mastodon comments client');
  client = found;
});
afterAll(() => fake.close());

const signal = () => new AbortController().signal;
const connection = (accessToken = 'mastodon-token'): PublishConnection => ({
  id: 'conn-1',
  platform: 'mastodon',
  // As the connect flow makes it: the account id at the instance's host.
  externalId: `${fake.account.id}@${new URL(fake.baseUrl).host}`,
  accessToken,
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: { instance: fake.baseUrl, maxCharacters: 600 },
});

let unique = 0;
async function publishedStatus(): Promise<string> {
  const h = makeRequest({
    platform: 'mastodon',
    content: `Status #${++unique}`,
    accessToken: 'mastodon-token',
    refreshToken: null,
    platformData: { instance: fake.baseUrl, maxCharacters: 600 },
  });
  return expectPublished(await publisherFor('mastodon', testConfig()).publish(h.request))
    .platformPostId;
}

const list = (platformPostId: string, token?: string) =>
  client.list({
    connection: connection(token),
    platformPostId,
    since: null,
    limit: 100,
    signal: signal(),
  });

describe('Mastodon comments', () => {
  it("reads the replies under a status from its context, others' and ours", async () => {
    const postId = await publishedStatus();
    const first = fake.addReply(postId, 'Nice & <b>bold</b>');
    const nested = fake.addReply(first.id, 'Agreed');
    const answer = await list(postId);
    expect(answer).toEqual({
      kind: 'listed',
      comments: [
        {
          platformCommentId: first.id,
          parentPlatformId: null,
          author: { id: first.account.id, name: 'A Fan', handle: 'fan@elsewhere.example' },
          text: 'Nice & <b>bold</b>',
          createdAt: new Date(first.createdAt),
          hidden: false,
          mine: false,
        },
        expect.objectContaining({ platformCommentId: nested.id, parentPlatformId: first.id }),
      ],
    });
    const context = fake.requests.filter((r) => r.path === `/api/v1/statuses/${postId}/context`);
    expect(context.at(-1)?.headers.authorization).toBe('Bearer mastodon-token');
    expect(client.can({ mine: false, parentPlatformId: null })).toEqual({
      reply: true,
      hide: false,
      delete: false,
    });
    expect(client.replyMaxLength(connection().platformData)).toBe(600);
  });

  it('replies once per Idempotency-Key, and finds that reply again', async () => {
    const postId = await publishedStatus();
    const question = fake.addReply(postId, 'When?');
    const since = new Date();
    const ask = () =>
      client.reply({
        connection: connection(),
        platformPostId: postId,
        platformCommentId: question.id,
        text: 'Tomorrow',
        idempotencyKey: 'reply-key-1',
        intentAt: since,
        signal: signal(),
      });
    const sent = await ask();
    if (sent.kind !== 'sent') throw new Error(`not sent: ${JSON.stringify(sent)}`);
    expect(sent.comment).toMatchObject({
      text: 'Tomorrow',
      mine: true,
      parentPlatformId: question.id,
    });
    expect((await ask()).kind).toBe('sent');
    const replies = fake.statuses.filter((s) => s.inReplyToId === question.id);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.idempotencyKey).toBe('reply-key-1');

    const find = (text: string) =>
      client.findReply({
        connection: connection(),
        platformPostId: postId,
        platformCommentId: question.id,
        text,
        since,
        idempotencyKey: 'reply-key-1',
        signal: signal(),
      });
    expect(await find('Tomorrow')).toEqual({ kind: 'found', comment: sent.comment });
    expect(await find('Never')).toEqual({ kind: 'not_found' });
  });

  it('a deleted status is gone; a reply to a deleted comment is gone', async () => {
    const postId = await publishedStatus();
    expect(await list('404404404')).toEqual({
      kind: 'gone',
      message: 'Mastodon status context: Record not found',
    });
    const answer = await client.reply({
      connection: connection(),
      platformPostId: postId,
      platformCommentId: '404404404',
      text: 'Hello?',
      idempotencyKey: 'reply-key-gone',
      intentAt: new Date(),
      signal: signal(),
    });
    expect(answer.kind).toBe('gone');
  });

  it('deletes its own reply; a refused token is connection_expired', async () => {
    const postId = await publishedStatus();
    const question = fake.addReply(postId, 'Hm?');
    const sent = await client.reply({
      connection: connection(),
      platformPostId: postId,
      platformCommentId: question.id,
      text: 'Oops',
      idempotencyKey: 'reply-key-delete',
      intentAt: new Date(),
      signal: signal(),
    });
    if (sent.kind !== 'sent') throw new Error('not sent');
    const remove = () =>
      client.delete?.({
        connection: connection(),
        platformPostId: postId,
        platformCommentId: sent.comment.platformCommentId,
        signal: signal(),
      });
    expect(await remove()).toEqual({ kind: 'done' });
    expect(fake.statuses.some((s) => s.id === sent.comment.platformCommentId)).toBe(false);
    expect((await remove())?.kind).toBe('gone');
    fake.expireAccessToken('mastodon-expired');
    expect((await list(postId, 'mastodon-expired')).kind).toBe('connection_expired');
  });
});
