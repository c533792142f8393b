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
  YOUTUBE_ERRORS,
} from './helpers.ts';
import { readerFor, readPosts, resultOf } from './numbers-read.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

const MANAGE = 'https://www.googleapis.com/auth/youtube.force-ssl';
const UPLOAD = 'https://www.googleapis.com/auth/youtube.upload';

let fake: FakeYoutube;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeYoutube(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const config = () =>
  testConfig({
    youtube: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'cid',
      clientSecret: 'csecret',
    },
  });
const remover = () => removerFor('youtube', config());

/** A token the fake issued for these scopes (through its consent and code exchange). */
function issuedFor(scopes: string[]): string {
  const redirectUri = 'https://app.example.com/callback';
  const consent = fake.oauth.authorize({
    clientId: 'youtube-client-id',
    redirectUri,
    state: 's',
    scope: scopes.join(' '),
  });
  const code = 'redirect' in consent ? new URL(consent.redirect).searchParams.get('code') : null;
  const answer = fake.oauth.exchangeCode({
    code: code ?? undefined,
    clientId: 'youtube-client-id',
    clientSecret: 'youtube-client-secret',
    redirectUri,
  });
  if (!answer.ok) throw new Error('no token');
  return answer.tokens.accessToken;
}

/** A video uploaded to the fake with its first comment. */
async function published() {
  const h = makeRequest({
    platform: 'youtube',
    content: 'A video to take down',
    mediaUrls: [media.url('clip.mp4', 100_000)],
    firstComment: 'Chapters: 0:00 intro',
  });
  const outcome = expectPublished(await publisherFor('youtube', config()).publish(h.request));
  return { platformPostId: outcome.platformPostId, firstCommentId: outcome.firstCommentId ?? null };
}
const target = (
  ids: { platformPostId: string; firstCommentId?: string | null },
  accessToken = 'access-1',
) => ({ platform: 'youtube' as const, externalId: 'UC-fake-channel', accessToken, ...ids });
const deletesSince = (from: number) =>
  fake.requests.slice(from).filter((r) => r.method === 'DELETE');
const listed = async (id: string) => {
  const reader = readerFor('youtube', config());
  const read = await readPosts(reader, { platform: 'youtube', externalId: 'UC' }, [{ id }]);
  return resultOf(read, id).kind;
};

describe('youtube remover', () => {
  it('needs youtube.force-ssl, which the connector now asks for', () => {
    expect(remover().scopes).toEqual([MANAGE]);
  });

  it('deletes the comment (comments?id=), then the video (videos?id=): 204 each', async () => {
    const ids = await published();
    expect(await listed(ids.platformPostId)).toBe('read');
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const calls = deletesSince(from);
    expect(calls.map((r) => [r.path, r.query.id])).toEqual([
      ['/youtube/v3/comments', ids.firstCommentId],
      ['/youtube/v3/videos', ids.platformPostId],
    ]);
    expect(calls[0]?.headers.authorization).toBe('Bearer access-1');
    expect(fake.comments.some((comment) => comment.id === ids.firstCommentId)).toBe(false);
    expect(await listed(ids.platformPostId)).toBe('gone');
  });

  it('asked again, both are 404 (commentNotFound, videoNotFound): removed', async () => {
    const ids = await published();
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(deletesSince(from)).toHaveLength(2);
    expect(await removeTarget(remover(), target({ platformPostId: 'never-uploaded' }))).toEqual({
      kind: 'removed',
    });
  });

  it('a rate limit waits a minute; the quota an hour', async () => {
    const ids = await published();
    fake.script({ on: 'delete', error: YOUTUBE_ERRORS.rateLimitExceeded });
    const limited = await removeTarget(remover(), target(ids));
    expectThrottledFor(limited, 59_000, 66_000 + 1_000);
    expect(limited).toMatchObject({ code: 'rateLimitExceeded' });
    fake.script({ on: 'delete', error: YOUTUBE_ERRORS.quotaExceeded });
    const quota = await removeTarget(remover(), target(ids));
    expectThrottledFor(quota, 3_599_000, 3_960_000 + 1_000);
    expect(fake.comments.some((comment) => comment.id === ids.firstCommentId)).toBe(true);
  });

  it('a refused token (401) is connection_expired: a remover cannot store renewed tokens', async () => {
    const ids = await published();
    fake.expireAccessToken('stale-token');
    const outcome = await removeTarget(remover(), target(ids, 'stale-token'));
    expect(outcome).toMatchObject({ kind: 'connection_expired', message: /^authError: / });
  });

  it('a backend error (503) is retried; a token without force-ssl is refused for good', async () => {
    const ids = await published();
    fake.script({ on: 'delete', error: YOUTUBE_ERRORS.backendError });
    expect(await removeTarget(remover(), target(ids))).toMatchObject({
      kind: 'failed',
      code: 'backendError',
      retryable: true,
    });
    const uploadOnly = issuedFor([UPLOAD]);
    expect(await removeTarget(remover(), target(ids, uploadOnly))).toMatchObject({
      kind: 'failed',
      code: 'insufficientPermissions',
      retryable: false,
    });
    const managing = issuedFor([UPLOAD, MANAGE]);
    expect(await removeTarget(remover(), target(ids, managing))).toEqual({ kind: 'removed' });
  });
});
