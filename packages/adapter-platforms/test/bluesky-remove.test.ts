import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOf } from '../src/bluesky/remove.ts';
import {
  expectPublished,
  type FakeBluesky,
  makeRequest,
  publisherFor,
  startFakeBluesky,
  testConfig,
} from './helpers.ts';
import { readerFor, readPosts, resultOf } from './numbers-read.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

let fake: FakeBluesky;
beforeAll(async () => {
  fake = await startFakeBluesky();
});
afterAll(() => fake.close());

const config = () => testConfig({ bluesky: { serviceUrl: fake.baseUrl, rateLimit: 'off' } });
const remover = () => removerFor('bluesky', config());
let unique = 0;
const exists = (uri: string | null | undefined) => fake.posts.some((post) => post.uri === uri);

/** A post published on the fake with a two-part thread and a first comment. */
async function published() {
  const n = ++unique;
  const session = fake.issueSession();
  const h = makeRequest({
    platform: 'bluesky',
    content: `Main #${n}`,
    externalId: fake.account.did,
    accessToken: session.accessJwt,
    refreshToken: session.refreshJwt,
    thread: [
      { content: `Second #${n}`, mediaUrls: [] },
      { content: `Third #${n}`, mediaUrls: [] },
    ],
    firstComment: `Comment #${n}`,
  });
  const outcome = expectPublished(await publisherFor('bluesky', config()).publish(h.request));
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
  accessToken = fake.issueSession().accessJwt,
) => ({ platform: 'bluesky' as const, externalId: fake.account.did, accessToken, ...ids });
const deletesSince = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path === '/xrpc/com.atproto.repo.deleteRecord');

describe('bluesky remover', () => {
  it('reads repo, collection and rkey from the at:// URI; anything else is refused', () => {
    expect(recordOf('at://did:plc:abc/app.bsky.feed.post/3lkey')).toEqual({
      repo: 'did:plc:abc',
      collection: 'app.bsky.feed.post',
      rkey: '3lkey',
    });
    expect(() => recordOf('https://bsky.app/profile/x/post/3lkey')).toThrow(/not the at:\/\/ URI/);
  });

  it('deletes the follow-ups last first, the comment, then the post (deleteRecord)', async () => {
    const ids = await published();
    expect(ids.threadPostIds).toHaveLength(2);
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const order = [...ids.threadPostIds]
      .reverse()
      .concat(ids.firstCommentId ?? '', ids.platformPostId);
    expect(deletesSince(from).map((r) => r.body)).toEqual(order.map((uri) => recordOf(uri)));
    for (const uri of order) expect(exists(uri)).toBe(false);
    const reader = readerFor('bluesky', config());
    const read = await readPosts(
      reader,
      {
        platform: 'bluesky',
        externalId: fake.account.did,
        accessToken: fake.issueSession().accessJwt,
      },
      [{ id: ids.platformPostId }],
    );
    expect(resultOf(read, ids.platformPostId)).toMatchObject({ kind: 'gone' });
  });

  it('asked again, every record is already gone (a no-op 200): removed', async () => {
    const ids = await published();
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(deletesSince(from)).toHaveLength(4);
  });

  it('a 429 waits until ratelimit-reset', async () => {
    const ids = await published();
    const reset = Math.floor(Date.now() / 1000) + 300;
    fake.script({
      nsid: 'com.atproto.repo.deleteRecord',
      error: {
        status: 429,
        error: 'RateLimitExceeded',
        message: 'Rate Limit Exceeded',
        headers: { 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset) },
      },
    });
    const outcome = await removeTarget(remover(), target(ids));
    expectThrottledFor(outcome, 298_000, 330_000 + 1_000);
    expect(outcome).toMatchObject({ code: 'RateLimitExceeded' });
    expect(exists(ids.platformPostId)).toBe(true);
  });

  it('an expired access JWT is connection_expired (a remover cannot store a new session)', async () => {
    const ids = await published();
    const token = fake.issueSession().accessJwt;
    fake.expireAccessToken(token);
    const outcome = await removeTarget(remover(), target(ids, token));
    expect(outcome).toMatchObject({ kind: 'connection_expired', message: /^ExpiredToken: / });
  });

  it('a 5xx is retried; an id that is no post URI fails for good', async () => {
    const ids = await published();
    fake.script({
      nsid: 'com.atproto.repo.deleteRecord',
      error: { status: 502, error: 'UpstreamFailure', message: 'Upstream Failure' },
    });
    expect(await removeTarget(remover(), target(ids))).toMatchObject({
      kind: 'failed',
      code: 'UpstreamFailure',
      retryable: true,
    });
    expect(await removeTarget(remover(), target({ platformPostId: 'not-a-uri' }))).toMatchObject({
      kind: 'failed',
      code: 'invalid_post_id',
      retryable: false,
    });
  });
});
