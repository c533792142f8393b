import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeYoutube(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const publisher = () =>
  publisherFor(
    'youtube',
    testConfig({
      youtube: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        clientId: 'cid',
        clientSecret: 'csecret',
      },
    }),
  );

describe('youtube publisher: first comment', () => {
  it('comments on the uploaded video (commentThreads.insert, part=snippet)', async () => {
    const h = makeRequest({
      platform: 'youtube',
      content: 'A video',
      mediaUrls: [media.url('clip.mp4', 300_000)],
      firstComment: 'Chapters: 0:00 intro',
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const comment = fake.comments.at(-1);
    expect(comment).toMatchObject({
      videoId: outcome.platformPostId,
      textOriginal: 'Chapters: 0:00 intro',
    });
    expect(outcome.firstCommentId).toBe(comment?.id);
  });
});
