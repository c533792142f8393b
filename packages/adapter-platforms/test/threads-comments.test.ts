// The Threads comments client against the fake Threads API: the replies under a published post
// read from its conversation (nested ones with their parent, ours told by is_reply_owned_by_me),
// a reply made as a container with reply_to_id and published, found again among the profile's
// replies, others' replies hidden with manage_reply, a reply to a deleted one `gone`.
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeThreads,
  makeRequest,
  publisherFor,
  startFakeThreads,
  testConfig,
} from './helpers.ts';

let fake: FakeThreads;
let client: PlatformCommentsClient;
const config = () => testConfig({ threads: { apiBaseUrl: fake.baseUrl } });
beforeAll(async () => {
  fake = await startFakeThreads();
  const found = createPlatformRegistry(config()).commentsClient('threads');
  if (!found) throw new Error('no Threads comments client');
  client = found;
});
afterAll(() => fake.close());

const signal = () => new AbortController().signal;
const connection = (): PublishConnection => ({
  id: 'conn-1',
  platform: 'threads',
  externalId: fake.profile.id,
  accessToken: 'threads-token',
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
});
let unique = 0;
async function publishedPost(): Promise<string> {
  const h = makeRequest({
    platform: 'threads',
    content: `Thoughts #${++unique}`,
    externalId: fake.profile.id,
  });
  return expectPublished(await publisherFor('threads', config()).publish(h.request)).platformPostId;
}
const ref = (postId: string, commentId: string) => ({
  connection: connection(),
  platformPostId: postId,
  platformCommentId: commentId,
  signal: signal(),
});

describe('Threads comments', () => {
  it('reads the conversation under a post, nested replies with their parent', async () => {
    const postId = await publishedPost();
    const first = fake.addReply(postId, 'Interesting');
    const nested = fake.addReply(first.id, 'Very');
    const listed = await client.list({
      connection: connection(),
      platformPostId: postId,
      since: null,
      limit: 100,
      signal: signal(),
    });
    expect(listed).toEqual({
      kind: 'listed',
      comments: [
        {
          platformCommentId: first.id,
          parentPlatformId: null,
          author: { id: 'a_fan', name: null, handle: 'a_fan' },
          text: 'Interesting',
          createdAt: new Date(first.timestamp.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')),
          hidden: false,
          mine: false,
        },
        expect.objectContaining({ platformCommentId: nested.id, parentPlatformId: first.id }),
      ],
    });
  });

  it('replies with a container and its publish, and finds the reply again', async () => {
    const postId = await publishedPost();
    const question = fake.addReply(postId, 'Source?');
    const since = new Date(Date.now() - 2_000);
    const sent = await client.reply({
      ...ref(postId, question.id),
      text: 'My own notes',
      idempotencyKey: 'k',
      intentAt: since,
    });
    if (sent.kind !== 'sent') throw new Error(JSON.stringify(sent));
    expect(fake.posts.find((p) => p.id === sent.comment.platformCommentId)).toMatchObject({
      replyTo: question.id,
      text: 'My own notes',
    });
    const find = (text: string) =>
      client.findReply({ ...ref(postId, question.id), text, since, idempotencyKey: 'k' });
    expect(await find('My own notes')).toMatchObject({
      kind: 'found',
      comment: { platformCommentId: sent.comment.platformCommentId },
    });
    expect(await find('Nothing')).toEqual({ kind: 'not_found' });
    const listed = await client.list({
      connection: connection(),
      platformPostId: postId,
      since: null,
      limit: 100,
      signal: signal(),
    });
    expect(
      listed.kind === 'listed' &&
        listed.comments.find((c) => c.platformCommentId === sent.comment.platformCommentId)?.mine,
    ).toBe(true);
  });

  it("hides others' replies; a reply to a missing one is gone", async () => {
    const postId = await publishedPost();
    const rude = fake.addReply(postId, 'Rude');
    expect(await client.hide?.({ ...ref(postId, rude.id), hidden: true })).toEqual({
      kind: 'done',
    });
    expect(fake.hiddenReplies.has(rude.id)).toBe(true);
    const gone = await client.reply({
      ...ref(postId, '1999999999'),
      text: 'Hello?',
      idempotencyKey: 'k2',
      intentAt: new Date(),
    });
    expect(gone.kind).toBe('gone');
    expect((await client.list({ ...ref('1999999999', ''), since: null, limit: 10 })).kind).toBe(
      'gone',
    );
  });
});
