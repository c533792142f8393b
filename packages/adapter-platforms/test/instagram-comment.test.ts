import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeInstagram,
  makeRequest,
  publisherFor,
  startFakeInstagram,
  testConfig,
} from './helpers.ts';

const IMAGE = 'https://cdn.example.com/photo.jpg';

let fake: FakeInstagram;
beforeAll(async () => {
  fake = await startFakeInstagram({});
});
afterAll(() => fake.close());

const publisher = () =>
  publisherFor(
    'instagram',
    testConfig({ instagram: { apiBaseUrl: fake.baseUrl, graphVersion: '21.0' } }),
  );
const request = (firstComment: string) =>
  makeRequest({ platform: 'instagram', mediaUrls: [IMAGE], content: 'Caption', firstComment });

describe('instagram publisher: first comment', () => {
  it('comments on the published media (POST /{ig-media-id}/comments?message=)', async () => {
    const outcome = expectPublished(await publisher().publish(request('#tags #here').request));
    const comment = fake.comments.at(-1);
    expect(comment).toMatchObject({ mediaId: outcome.platformPostId, message: '#tags #here' });
    expect(outcome.firstCommentId).toBe(comment?.id);
    const sent = fake.requests.find((r) => r.path.endsWith(`/${outcome.platformPostId}/comments`));
    expect(sent?.query.message).toBe('#tags #here');
  });

  it('a comment that fails for a while is retried alone: the media is not published again', async () => {
    fake.script({ error: { code: 2, message: 'Service temporarily unavailable' }, on: 'comment' });
    const h = request('later');
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const published = fake.media.length;
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.media.length).toBe(published);
    expect(fake.comments.filter((c) => c.mediaId === outcome.platformPostId)).toHaveLength(1);
  });

  it('a run stopped after sending the comment finds it on the media: not commented twice', async () => {
    const h = request('said once');
    const first = expectPublished(await publisher().publish(h.request));
    // The crash came after the comment was made, before its answer was stored.
    const again = afterCrash(h);
    expect(again.request.intent?.step).toBe('first_comment');
    const outcome = expectPublished(await publisher().resume(again.request));
    expect(outcome.firstCommentId).toBe(first.firstCommentId);
    expect(fake.comments.filter((c) => c.mediaId === first.platformPostId)).toHaveLength(1);
  });

  it('a comment whose answer never came and that the media does not show is sent again', async () => {
    fake.script({ drop: true, on: 'comment' });
    const h = request('dropped before it was made');
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const again = afterCrash(h);
    expect(again.request.intent?.step).toBe('first_comment');
    const outcome = expectPublished(await publisher().resume(again.request));
    const made = fake.comments.filter((c) => c.mediaId === outcome.platformPostId);
    expect(made.map((c) => c.message)).toEqual(['dropped before it was made']);
    expect(outcome.firstCommentId).toBe(made[0]?.id);
  });

  it('after a lost media_publish answer the comment goes on the media, found by its caption', async () => {
    fake.script({ dropAfterPublish: true });
    const h = makeRequest({
      platform: 'instagram',
      mediaUrls: [IMAGE],
      content: 'Caption of a lost answer',
      firstComment: 'on the right media',
    });
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const made = fake.media.at(-1);
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(outcome.platformPostId).toBe(made?.id);
    expect(fake.comments.at(-1)).toMatchObject({
      mediaId: made?.id,
      message: 'on the right media',
    });
  });
});
