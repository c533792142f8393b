import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPublished,
  type FakeMastodon,
  makeRequest,
  publisherFor,
  startFakeMastodon,
  testConfig,
} from './helpers.ts';
import { readerFor } from './numbers-read.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

let fake: FakeMastodon;
let limited: FakeMastodon;
beforeAll(async () => {
  [fake, limited] = await Promise.all([startFakeMastodon(), startFakeMastodon({ deleteLimit: 1 })]);
});
afterAll(async () => {
  await Promise.all([fake.close(), limited.close()]);
});

const remover = () => removerFor('mastodon', testConfig());
let unique = 0;
const exists = (id: string | null | undefined, on = fake) => on.statuses.some((s) => s.id === id);

/** A status published on `on` with a two-part thread and a first comment. */
async function published(on = fake) {
  const n = ++unique;
  const h = makeRequest({
    platform: 'mastodon',
    content: `Main #${n}`,
    accessToken: 'mastodon-token',
    refreshToken: null,
    platformData: { instance: on.baseUrl, maxCharacters: 500 },
    thread: [
      { content: `Second #${n}`, mediaUrls: [] },
      { content: `Third #${n}`, mediaUrls: [] },
    ],
    firstComment: `Comment #${n}`,
  });
  const outcome = expectPublished(await publisherFor('mastodon', testConfig()).publish(h.request));
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
  on = fake,
  accessToken = 'mastodon-token',
) => ({
  platform: 'mastodon' as const,
  externalId: '1',
  accessToken,
  platformData: { instance: on.baseUrl, maxCharacters: 500 },
  ...ids,
});
const deletesSince = (from: number, on = fake) =>
  on.requests.slice(from).filter((r) => r.method === 'DELETE');

describe('mastodon remover', () => {
  it('deletes the follow-ups last first, the comment, then the status, on its instance', async () => {
    const ids = await published();
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const order = [...ids.threadPostIds]
      .reverse()
      .concat(ids.firstCommentId ?? '', ids.platformPostId);
    expect(deletesSince(from).map((r) => r.path)).toEqual(
      order.map((id) => `/api/v1/statuses/${id}`),
    );
    expect(deletesSince(from)[0]?.headers.authorization).toBe('Bearer mastodon-token');
    for (const id of order) expect(exists(id)).toBe(false);
    const reader = readerFor('mastodon', testConfig());
    const read = await reader.read({
      connection: {
        ...target(ids),
        id: 'c',
        platform: 'mastodon',
        refreshToken: null,
        tokenExpiresAt: null,
      },
      items: [{ targetId: 't', platformPostId: ids.platformPostId, publishedAt: new Date() }],
      signal: new AbortController().signal,
    });
    expect(read.kind === 'read' && read.results.get('t')?.kind).toBe('gone');
  });

  it('asked again (404 Record not found), or for a status never made: removed', async () => {
    const ids = await published();
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target({ platformPostId: '404404' }))).toEqual({
      kind: 'removed',
    });
  });

  it('past the delete limit, waits until X-RateLimit-Reset (30 minutes)', async () => {
    const ids = await published(limited);
    const from = limited.requests.length;
    const outcome = await removeTarget(remover(), target(ids, limited));
    expectThrottledFor(outcome, 29 * 60_000, 33 * 60_000 + 1_000);
    expect(outcome).toMatchObject({ code: 'rate_limited' });
    // The first delete went through, the second was refused: the status is still there.
    expect(deletesSince(from, limited)).toHaveLength(2);
    expect(exists(ids.platformPostId, limited)).toBe(true);
  });

  it('a refused token (401) is connection_expired', async () => {
    const ids = await published();
    fake.expireAccessToken('revoked-token');
    const outcome = await removeTarget(remover(), target(ids, fake, 'revoked-token'));
    expect(outcome).toMatchObject({ kind: 'connection_expired', message: /^invalid_token: / });
  });

  it('a 503 is retried; a token without write:statuses is refused for good', async () => {
    const ids = await published();
    fake.script({ error: { status: 503, error: 'Service Unavailable' } });
    expect(await removeTarget(remover(), target(ids))).toMatchObject({
      kind: 'failed',
      code: 'http_503',
      retryable: true,
    });
    fake.tokenScopes.set('read-only', ['read']);
    expect(await removeTarget(remover(), target(ids, fake, 'read-only'))).toMatchObject({
      kind: 'failed',
      code: 'forbidden',
      retryable: false,
    });
  });

  it('a connection that does not know its instance fails without calling anything', async () => {
    const outcome = await removeTarget(remover(), {
      ...target({ platformPostId: '1' }),
      platformData: null,
    });
    expect(outcome).toMatchObject({ kind: 'failed', code: 'instance_unknown', retryable: false });
  });
});
