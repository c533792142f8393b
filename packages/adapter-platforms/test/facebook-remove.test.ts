import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPublished,
  FACEBOOK_ERRORS,
  type FakeFacebook,
  makeRequest,
  publisherFor,
  startFakeFacebook,
  testConfig,
} from './helpers.ts';
import { readerFor, readPosts, resultOf } from './numbers-read.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

const PAGE = '102000000000001';
let fake: FakeFacebook;
beforeAll(async () => {
  fake = await startFakeFacebook({ strictTokens: true });
  fake.pageTokens.set('page-token', PAGE);
});
afterAll(() => fake.close());

const config = () => testConfig({ facebook: { apiBaseUrl: fake.baseUrl, graphVersion: 'v21.0' } });
const remover = () => removerFor('facebook', config());
let unique = 0;

/** A Page post published on the fake with its first comment. */
async function published() {
  const h = makeRequest({
    platform: 'facebook',
    content: `To be taken down #${++unique}`,
    firstComment: `Its first comment #${unique}`,
    externalId: PAGE,
    accessToken: 'page-token',
    refreshToken: null,
  });
  const outcome = expectPublished(await publisherFor('facebook', config()).publish(h.request));
  return { platformPostId: outcome.platformPostId, firstCommentId: outcome.firstCommentId ?? null };
}
const target = (
  ids: { platformPostId: string; firstCommentId?: string | null },
  token = 'page-token',
) => ({
  platform: 'facebook' as const,
  externalId: PAGE,
  accessToken: token,
  ...ids,
});

describe('facebook remover', () => {
  it('needs pages_manage_engagement (deleting posts, moderating comments)', () => {
    expect(remover().scopes).toEqual(['pages_manage_engagement']);
  });

  it('deletes the first comment, then the post (DELETE /{id}, token in the query)', async () => {
    const ids = await published();
    expect(ids.firstCommentId).not.toBeNull();
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const deletes = fake.requests.slice(from).filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => r.path)).toEqual([
      `/v21.0/${ids.firstCommentId}`,
      `/v21.0/${ids.platformPostId}`,
    ]);
    expect(deletes[0]?.query.access_token).toBe('page-token');
    expect(fake.posts.some((post) => post.id === ids.platformPostId)).toBe(false);
    expect(fake.comments.some((comment) => comment.id === ids.firstCommentId)).toBe(false);
    // Its numbers are gone too.
    const reader = readerFor('facebook', config());
    const read = await readPosts(
      reader,
      { platform: 'facebook', externalId: PAGE, accessToken: 'page-token' },
      [{ id: ids.platformPostId }],
    );
    expect(resultOf(read, ids.platformPostId)).toMatchObject({ kind: 'gone' });
  });

  it('asked again, every part is already gone (100/33): removed', async () => {
    const ids = await published();
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(fake.requests.slice(from).filter((r) => r.method === 'DELETE')).toHaveLength(2);
  });

  it('a post the Page never had counts as removed', async () => {
    const outcome = await removeTarget(remover(), target({ platformPostId: `${PAGE}_404404` }));
    expect(outcome).toEqual({ kind: 'removed' });
  });

  it('a throttle (32) waits for X-Page-Usage estimated_time_to_regain_access; nothing more is asked', async () => {
    const ids = await published();
    fake.script({
      path: `/${ids.firstCommentId}`,
      error: {
        code: 32,
        message: 'Page request limit reached',
        headers: { 'x-page-usage': JSON.stringify({ estimated_time_to_regain_access: 7 }) },
      },
    });
    const from = fake.requests.length;
    const outcome = await removeTarget(remover(), target(ids));
    expectThrottledFor(outcome, 7 * 60_000 - 1_000, 7 * 60_000 * 1.1 + 1_000);
    expect(outcome).toMatchObject({ code: '32' });
    // The first refusal ends the removal: the post was not asked for.
    expect(fake.requests.slice(from).filter((r) => r.method === 'DELETE')).toHaveLength(1);
    expect(fake.posts.some((post) => post.id === ids.platformPostId)).toBe(true);
  });

  it('a refused Page token (190) ends with connection_expired', async () => {
    const ids = await published();
    fake.pageTokens.set('page-token-revoked', PAGE);
    fake.expireAccessToken('page-token-revoked');
    const outcome = await removeTarget(remover(), target(ids, 'page-token-revoked'));
    expect(outcome).toMatchObject({
      kind: 'connection_expired',
      message: expect.stringMatching(/^190: /),
    });
    expect(fake.posts.some((post) => post.id === ids.platformPostId)).toBe(true);
  });

  it("Graph's own failure (500, code 1) is a retryable failure naming the part", async () => {
    const ids = await published();
    fake.script({ path: `/${ids.platformPostId}`, error: FACEBOOK_ERRORS.unknown });
    const outcome = await removeTarget(remover(), target(ids));
    expect(outcome).toMatchObject({ kind: 'failed', code: '1', retryable: true });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/while deleting the post/);
    // The comment went; asking again finishes the post.
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(fake.posts.some((post) => post.id === ids.platformPostId)).toBe(false);
  });

  it("another Page's post is refused for good (200)", async () => {
    fake.pageTokens.set('other-page-token', '102000000000999');
    const ids = await published();
    const outcome = await removeTarget(remover(), target(ids, 'other-page-token'));
    expect(outcome).toMatchObject({ kind: 'failed', code: '200', retryable: false });
  });
});
