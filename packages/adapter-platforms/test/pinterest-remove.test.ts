import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectPublished,
  type FakePinterest,
  makeRequest,
  PINTEREST_BOARD_ID,
  PINTEREST_ERRORS,
  publisherFor,
  startFakePinterest,
  testConfig,
} from './helpers.ts';
import { readerFor, readPosts, resultOf } from './numbers-read.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

let fake: FakePinterest;
beforeAll(async () => {
  fake = await startFakePinterest();
});
afterAll(() => fake.close());

const config = () =>
  testConfig({ pinterest: { apiBaseUrl: fake.baseUrl, tokenBaseUrl: fake.baseUrl } });
const remover = () => removerFor('pinterest', config());
let unique = 0;

/** A Pin published on the fake's board. */
async function published(): Promise<string> {
  const h = makeRequest({
    platform: 'pinterest',
    content: `A Pin to take down #${++unique}`,
    mediaUrls: ['https://cdn.example.com/photo.jpg'],
    platformOptions: { pinterest: { board_id: PINTEREST_BOARD_ID } },
    externalId: fake.user.id,
  });
  const outcome = expectPublished(await publisherFor('pinterest', config()).publish(h.request));
  return outcome.platformPostId;
}
const target = (platformPostId: string, accessToken = 'access-1') => ({
  platform: 'pinterest' as const,
  externalId: fake.user.id,
  accessToken,
  platformPostId,
});
const exists = (id: string) => fake.pins.some((pin) => pin.id === id);

describe('pinterest remover', () => {
  it('declares no scope beyond publishing (pins:write)', () => {
    expect(remover().scopes).toBeUndefined();
  });

  it('deletes the Pin (DELETE /v5/pins/{id}, 204): gone from the board and its analytics', async () => {
    const id = await published();
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(id))).toEqual({ kind: 'removed' });
    const call = fake.requests.slice(from).find((r) => r.method === 'DELETE');
    expect(call?.path).toBe(`/v5/pins/${id}`);
    expect(call?.headers.authorization).toBe('Bearer access-1');
    expect(exists(id)).toBe(false);
    const reader = readerFor('pinterest', config());
    const read = await readPosts(reader, { platform: 'pinterest', externalId: 'u' }, [{ id }]);
    expect(resultOf(read, id)).toMatchObject({ kind: 'gone' });
  });

  it('asked again (404 code 50), or for a Pin never made: removed', async () => {
    const id = await published();
    expect(await removeTarget(remover(), target(id))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target(id))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target('404404'))).toEqual({ kind: 'removed' });
  });

  it('a 429 waits until X-RateLimit-Reset (seconds)', async () => {
    const id = await published();
    fake.script({ error: PINTEREST_ERRORS.rateLimited, on: 'pinDelete' });
    const outcome = await removeTarget(remover(), target(id));
    // Without a reset header: Pinterest's one-minute window.
    expectThrottledFor(outcome, 59_000, 66_000 + 1_000);
    expect(outcome).toMatchObject({ code: 'pinterest_8' });
    expect(exists(id)).toBe(true);
    fake.script({ error: PINTEREST_ERRORS.rateLimited, on: 'pinDelete', retryAfterSeconds: 30 });
    expectThrottledFor(await removeTarget(remover(), target(id)), 29_000, 33_000 + 1_000);
  });

  it('a refused token (401) is connection_expired', async () => {
    const id = await published();
    fake.expireAccessToken('stale-token');
    const outcome = await removeTarget(remover(), target(id, 'stale-token'));
    expect(outcome).toMatchObject({ kind: 'connection_expired', message: /^pinterest_2: / });
    expect(exists(id)).toBe(true);
  });

  it('a 500 is retried; a 403 is refused for good', async () => {
    const id = await published();
    fake.script({ error: PINTEREST_ERRORS.serverError, on: 'pinDelete' });
    expect(await removeTarget(remover(), target(id))).toMatchObject({
      kind: 'failed',
      code: 'pinterest_3',
      retryable: true,
    });
    fake.script({ error: PINTEREST_ERRORS.forbidden, on: 'pinDelete' });
    expect(await removeTarget(remover(), target(id))).toMatchObject({
      kind: 'failed',
      code: 'pinterest_29',
      retryable: false,
    });
    expect(await removeTarget(remover(), target(id))).toEqual({ kind: 'removed' });
  });
});
