import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPublished,
  type FakeThreads,
  makeRequest,
  publisherFor,
  startFakeThreads,
  THREADS_ERRORS,
  testConfig,
} from './helpers.ts';
import { readerFor, readPosts, resultOf } from './numbers-read.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

let fake: FakeThreads;
beforeAll(async () => {
  fake = await startFakeThreads();
});
afterAll(() => fake.close());

const config = () => testConfig({ threads: { apiBaseUrl: fake.baseUrl } });
const remover = () => removerFor('threads', config());
let unique = 0;
const exists = (id: string | undefined) => fake.posts.some((post) => post.id === id);

/** A post published on the fake with a two-part thread and a first comment (three replies). */
async function published() {
  const n = ++unique;
  const h = makeRequest({
    platform: 'threads',
    content: `Main #${n}`,
    externalId: fake.profile.id,
    thread: [
      { content: `Second #${n}`, mediaUrls: [] },
      { content: `Third #${n}`, mediaUrls: [] },
    ],
    firstComment: `Comment #${n}`,
  });
  const outcome = expectPublished(await publisherFor('threads', config()).publish(h.request));
  return {
    platformPostId: outcome.platformPostId,
    threadPostIds: outcome.threadPostIds ?? [],
    firstCommentId: outcome.firstCommentId ?? null,
  };
}
const target = (
  ids: {
    platformPostId: string;
    threadPostIds?: readonly string[];
    firstCommentId?: string | null;
  },
  accessToken = 'access-1',
) => ({ platform: 'threads' as const, externalId: fake.profile.id, accessToken, ...ids });
const deletesSince = (from: number) =>
  fake.requests.slice(from).filter((r) => r.method === 'DELETE');

describe('threads remover', () => {
  it('needs threads_delete', () => {
    expect(remover().scopes).toEqual(['threads_delete']);
  });

  it('deletes the follow-ups last first, the first reply, then the post', async () => {
    const ids = await published();
    expect(ids.threadPostIds).toHaveLength(2);
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const [second, third] = ids.threadPostIds;
    expect(deletesSince(from).map((r) => r.path)).toEqual([
      `/v1.0/${third}`,
      `/v1.0/${second}`,
      `/v1.0/${ids.firstCommentId}`,
      `/v1.0/${ids.platformPostId}`,
    ]);
    expect(deletesSince(from)[0]?.query.access_token).toBe('access-1');
    for (const id of [ids.platformPostId, ...ids.threadPostIds, ids.firstCommentId ?? '']) {
      expect(exists(id)).toBe(false);
    }
    const reader = readerFor('threads', config());
    const read = await readPosts(reader, { platform: 'threads', externalId: fake.profile.id }, [
      { id: ids.platformPostId },
    ]);
    expect(resultOf(read, ids.platformPostId)).toMatchObject({ kind: 'gone' });
  });

  it('asked again (every part 100/33), or for a post never published: removed', async () => {
    const ids = await published();
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target({ platformPostId: '404404' }))).toEqual({
      kind: 'removed',
    });
  });

  it('a rate limit (4) waits as Retry-After says, and stops there', async () => {
    const ids = await published();
    fake.script({
      on: 'delete',
      error: { ...THREADS_ERRORS.appRateLimit, headers: { 'retry-after': '120' } },
    });
    const from = fake.requests.length;
    const outcome = await removeTarget(remover(), target(ids));
    expectThrottledFor(outcome, 119_000, 132_000 + 1_000);
    expect(outcome).toMatchObject({ code: '4' });
    expect(deletesSince(from)).toHaveLength(1);
    expect(exists(ids.platformPostId)).toBe(true);
  });

  it('an expired token (190) is connection_expired', async () => {
    const ids = await published();
    fake.expireAccessToken('expired-token');
    const outcome = await removeTarget(remover(), target(ids, 'expired-token'));
    expect(outcome).toMatchObject({
      kind: 'connection_expired',
      message: expect.stringMatching(/^190: /),
    });
    expect(exists(ids.platformPostId)).toBe(true);
  });

  it('a server error is retried later; what was deleted stays deleted', async () => {
    const ids = await published();
    fake.script({ on: 'delete', error: THREADS_ERRORS.serverError, times: 1 });
    const outcome = await removeTarget(remover(), target({ platformPostId: ids.platformPostId }));
    expect(outcome).toMatchObject({ kind: 'failed', code: '2', retryable: true });
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(exists(ids.platformPostId)).toBe(false);
  });

  it('a missing permission (10) fails for good', async () => {
    const ids = await published();
    fake.script({ on: 'delete', error: THREADS_ERRORS.permission });
    const outcome = await removeTarget(remover(), target(ids));
    expect(outcome).toMatchObject({ kind: 'failed', code: '10', retryable: false });
  });
});
