import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeFacebook,
  makeRequest,
  publisherFor,
  startFakeFacebook,
  testConfig,
} from './helpers.ts';

let fake: FakeFacebook;
const PAGE = '102000000000001';
beforeAll(async () => {
  fake = await startFakeFacebook({ strictTokens: true });
  fake.pageTokens.set('page-token', PAGE);
});
afterAll(async () => {
  await fake.close();
});

const publisher = (requestTimeoutMs?: number) =>
  publisherFor(
    'facebook',
    testConfig({
      facebook: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' },
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
    }),
  );
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const request = (content: string, firstComment: string) =>
  makeRequest({
    platform: 'facebook',
    content,
    firstComment,
    externalId: PAGE,
    accessToken: 'page-token',
    refreshToken: null,
  });
const postOf = (content: string) => fake.posts.filter((post) => post.message === content);

describe('facebook publisher: first comment', () => {
  it('comments on the published post (POST /{post-id}/comments) and returns both ids', async () => {
    const content = text('With a comment');
    const h = request(content, 'Link in the first comment: https://example.com');
    const outcome = expectPublished(await publisher().publish(h.request));
    const comment = fake.comments.at(-1);
    expect(comment).toMatchObject({
      objectId: outcome.platformPostId,
      message: 'Link in the first comment: https://example.com',
    });
    expect(outcome.firstCommentId).toBe(comment?.id);
    expect(postOf(content)).toHaveLength(1);
    // The post's id is stored before the comment is sent.
    expect(h.progress.at(-1)).toEqual({
      publishedBeforeComment: {
        platformPostId: outcome.platformPostId,
        platformUrl: outcome.platformUrl,
      },
    });
  });

  it('a comment Facebook refuses fails the target with the post id kept', async () => {
    const content = text('Comment refused');
    fake.script({ path: '/comments', error: { code: 100, message: '(#100) Invalid parameter' } });
    const outcome = await publisher().publish(request(content, 'nope').request);
    expect(outcome).toMatchObject({
      kind: 'failed',
      retryable: false,
      publishedSoFar: { platformPostId: postOf(content)[0]?.id },
    });
  });

  it('a retry after a comment failed for a while comments only: the post is not re-posted', async () => {
    const content = text('Comment later');
    fake.script({
      path: '/comments',
      error: { code: 2, message: 'Service temporarily unavailable', status: 500 },
    });
    const h = request(content, 'second try');
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(postOf(content)).toHaveLength(1);
    expect(outcome.platformPostId).toBe(postOf(content)[0]?.id);
    expect(fake.comments.filter((c) => c.objectId === outcome.platformPostId)).toHaveLength(1);
  });

  it('a crash after sending the comment: found on the post, never sent twice', async () => {
    const content = text('Comment lost');
    fake.script({ path: '/comments', hangAfterCreate: true });
    const h = request(content, 'maybe sent');
    expect(await publisher(300).publish(h.request)).toMatchObject({ kind: 'failed' });
    expect(h.pendingIntent()?.step).toBe('first_comment');
    const count = fake.comments.length;
    const made = fake.comments.at(-1);
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(fake.comments.length).toBe(count);
    expect(postOf(content)).toHaveLength(1);
    expect(outcome).toMatchObject({
      kind: 'published',
      platformPostId: postOf(content)[0]?.id,
      firstCommentId: made?.id,
    });
  });

  it('a comment whose answer never came and that the post does not show is sent once more', async () => {
    const content = text('Comment dropped');
    fake.script({ path: '/comments', drop: true });
    const h = request(content, 'dropped before it was made');
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed' });
    expect(h.pendingIntent()?.step).toBe('first_comment');
    const outcome = await publisher().resume(afterCrash(h).request);
    const postId = postOf(content)[0]?.id;
    const made = fake.comments.filter((c) => c.message === 'dropped before it was made');
    expect(made).toHaveLength(1);
    expect(outcome).toMatchObject({
      kind: 'published',
      platformPostId: postId,
      firstCommentId: made[0]?.id,
    });
  });
});
