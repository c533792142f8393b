// The YouTube comments client against the fake Data API: a video's comment threads with their
// replies, a reply to a top-level comment (comments.insert with parentId), that reply found
// again (comments.list?parentId=), others' comments held for review and shown again, the
// channel's own comment deleted, and a deleted video `gone`.
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeYoutube,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeYoutube,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeYoutube;
let media: MediaServer;
let client: PlatformCommentsClient;
const config = () =>
  testConfig({
    youtube: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'cid',
      clientSecret: 'csecret',
    },
  });
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeYoutube(), startMediaServer()]);
  const found = createPlatformRegistry(config()).commentsClient('youtube');
  if (!found) throw new Error('no YouTube comments client');
  client = found;
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const signal = () => new AbortController().signal;
const connection = (): PublishConnection => ({
  id: 'conn-1',
  platform: 'youtube',
  externalId: fake.channel?.id ?? '',
  accessToken: 'access-1',
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
});
async function publishedVideo(): Promise<string> {
  const h = makeRequest({
    platform: 'youtube',
    content: 'A video to talk about',
    mediaUrls: [media.url('clip.mp4', 100_000)],
  });
  return expectPublished(await publisherFor('youtube', config()).publish(h.request)).platformPostId;
}
const ref = (videoId: string, commentId: string) => ({
  connection: connection(),
  platformPostId: videoId,
  platformCommentId: commentId,
  signal: signal(),
});
const list = (videoId: string) =>
  client.list({
    connection: connection(),
    platformPostId: videoId,
    since: null,
    limit: 100,
    signal: signal(),
  });

describe('YouTube comments', () => {
  it("reads a video's threads with their replies", async () => {
    const videoId = await publishedVideo();
    const first = fake.addComment(videoId, 'Great video');
    const answer = fake.addComment(first.id, 'True');
    expect(await list(videoId)).toEqual({
      kind: 'listed',
      comments: [
        {
          platformCommentId: first.id,
          parentPlatformId: null,
          author: { id: 'UCfan0000000000000000099', name: 'A Fan', handle: null },
          text: 'Great video',
          createdAt: new Date(first.publishedAt ?? ''),
          hidden: false,
          mine: false,
        },
        expect.objectContaining({ platformCommentId: answer.id, parentPlatformId: first.id }),
      ],
    });
    const asked = fake.requests.filter((r) => r.path === '/youtube/v3/commentThreads').at(-1);
    expect(asked?.query).toMatchObject({ part: 'snippet,replies', videoId });
    expect(asked?.headers.authorization).toBe('Bearer access-1');
  });

  it('replies to a top-level comment, finds the reply again, deletes it', async () => {
    const videoId = await publishedVideo();
    const question = fake.addComment(videoId, 'Which camera?');
    const since = new Date(Date.now() - 2_000);
    const sent = await client.reply({
      ...ref(videoId, question.id),
      text: 'A phone',
      idempotencyKey: 'k',
      intentAt: since,
    });
    if (sent.kind !== 'sent') throw new Error(JSON.stringify(sent));
    expect(sent.comment).toMatchObject({ parentPlatformId: question.id, mine: true });
    const find = (text: string) =>
      client.findReply({ ...ref(videoId, question.id), text, since, idempotencyKey: 'k' });
    expect(await find('A phone')).toMatchObject({
      kind: 'found',
      comment: { platformCommentId: sent.comment.platformCommentId },
    });
    expect(await find('A drone')).toEqual({ kind: 'not_found' });
    expect(await client.delete?.(ref(videoId, sent.comment.platformCommentId))).toEqual({
      kind: 'done',
    });
    expect(fake.comments.some((c) => c.id === sent.comment.platformCommentId)).toBe(false);
  });

  it("holds others' comments for review; a missing video or comment is gone", async () => {
    const videoId = await publishedVideo();
    const rude = fake.addComment(videoId, 'Rude');
    expect(await client.hide?.({ ...ref(videoId, rude.id), hidden: true })).toEqual({
      kind: 'done',
    });
    expect(fake.comments.find((c) => c.id === rude.id)?.moderationStatus).toBe('heldForReview');
    expect(client.can({ mine: false, parentPlatformId: null })).toEqual({
      reply: true,
      hide: true,
      delete: false,
    });
    expect((await list('no-such-video')).kind).toBe('gone');
    const gone = await client.reply({
      ...ref(videoId, 'no-such-comment'),
      text: 'Hello?',
      idempotencyKey: 'k2',
      intentAt: new Date(),
    });
    expect(gone.kind).toBe('gone');
  });
});
