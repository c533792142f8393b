import type { PlatformRemover, RefreshedTokens, RemoveRequest } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import {
  expectPublished,
  type FakeX,
  makeRequest,
  publisherFor,
  startFakeX,
  testConfig,
} from './helpers.ts';

let fake: FakeX;
beforeAll(async () => {
  fake = await startFakeX({});
});
afterAll(async () => {
  await fake.close();
});

const config = () =>
  testConfig({
    twitter: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'x-client-id',
      clientSecret: 'x-client-secret',
    },
  });
const remover = (): PlatformRemover => {
  const found = createPlatformRegistry(config()).remover('twitter');
  if (!found) throw new Error('no twitter remover');
  return found;
};
let unique = 0;
const text = (label: string) => `${label} #${++unique} ${Date.now()}`;

/** Publishes a post (with follow-ups) on the fake, and the request that takes it down. */
async function published(thread = 0) {
  const parts = Array.from({ length: thread }, () => ({ content: text('Part'), mediaUrls: [] }));
  const h = makeRequest({ platform: 'twitter', content: text('Main'), thread: parts });
  const outcome = expectPublished(await publisherFor('twitter', config()).publish(h.request));
  const tokens: RefreshedTokens[] = [];
  const request: RemoveRequest = {
    connection: h.request.connection,
    platformPostId: outcome.platformPostId,
    platformUrl: outcome.platformUrl,
    threadPostIds: outcome.threadPostIds ?? [],
    firstCommentId: null,
    signal: new AbortController().signal,
    saveTokens: async (fresh) => {
      tokens.push(fresh);
    },
  };
  return { request, outcome, tokens };
}

const deletesOf = () =>
  fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.path.split('/').pop());

describe('twitter remover: DELETE /2/tweets/:id', () => {
  it('deletes the follow-ups last first, then the main post', async () => {
    const { request, outcome } = await published(2);
    const before = deletesOf().length;
    expect(await remover().remove(request)).toEqual({ kind: 'removed' });
    const [second, third] = outcome.threadPostIds ?? [];
    expect(deletesOf().slice(before)).toEqual([third, second, outcome.platformPostId]);
    expect(fake.tweets.some((t) => t.id === outcome.platformPostId)).toBe(false);
    expect(fake.deletes.deleted).toContain(outcome.platformPostId);
  });

  it('a post already gone counts as removed (deleted: false, or 404)', async () => {
    const { request } = await published();
    expect(await remover().remove(request)).toEqual({ kind: 'removed' });
    expect(await remover().remove(request)).toEqual({ kind: 'removed' });
    fake.script({ error: { status: 404, title: 'Not Found Error', detail: 'gone' } });
    expect(await remover().remove(request)).toEqual({ kind: 'removed' });
  });

  it('429 waits until x-rate-limit-reset', async () => {
    const { request } = await published();
    const reset = Math.ceil(Date.now() / 1000) + 600;
    fake.script({
      error: { status: 429, title: 'Too Many Requests', detail: 'Too Many Requests' },
      headers: { 'x-rate-limit-reset': String(reset) },
    });
    const outcome = await remover().remove(request);
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'rate_limit_exceeded' });
    // At the reset, give or take the 10 % jitter that spreads the waiting targets.
    const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
    expect(at).toBeGreaterThanOrEqual(reset * 1000 - 1_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1.1 * 600_000 + 1_000);
  });

  it('401: renews the token once and keeps the rotated tokens, then deletes', async () => {
    const consent = fake.oauth.authorize({
      clientId: 'x-client-id',
      redirectUri: 'https://app.example/cb',
      state: 's',
      scope: 'tweet.read tweet.write users.read offline.access',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const granted = fake.oauth.exchangeCode({
      code: new URL(consent.redirect).searchParams.get('code') ?? '',
      clientId: 'x-client-id',
      clientSecret: 'x-client-secret',
      redirectUri: 'https://app.example/cb',
      codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    if (!granted.ok || !granted.tokens.refreshToken) throw new Error('no tokens');
    const { request, outcome, tokens } = await published();
    fake.expireAccessToken(granted.tokens.accessToken);
    const connection = {
      ...request.connection,
      accessToken: granted.tokens.accessToken,
      refreshToken: granted.tokens.refreshToken,
    };
    expect(await remover().remove({ ...request, connection })).toEqual({ kind: 'removed' });
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.refreshToken).not.toBe(granted.tokens.refreshToken);
    expect(fake.tweets.some((t) => t.id === outcome.platformPostId)).toBe(false);
  });

  it('401 that cannot be renewed is connection_expired; without saveTokens no renewal is tried', async () => {
    const { request } = await published();
    const unauthorized = { status: 401, title: 'Unauthorized', detail: 'Unauthorized' };
    fake.script({ error: unauthorized });
    const spent = { ...request, connection: { ...request.connection, refreshToken: 'spent' } };
    expect((await remover().remove(spent)).kind).toBe('connection_expired');
    const tokenCalls = fake.requests.filter((r) => r.path === '/2/oauth2/token').length;
    fake.script({ error: unauthorized });
    const { saveTokens: _saveTokens, ...withoutSaving } = request;
    expect((await remover().remove(withoutSaving)).kind).toBe('connection_expired');
    expect(fake.requests.filter((r) => r.path === '/2/oauth2/token')).toHaveLength(tokenCalls);
  });

  it("another user's post is a 403: failed for good, with X's words", async () => {
    const { request } = await published();
    fake.script({
      error: { status: 403, title: 'Forbidden', detail: 'You are not allowed to delete this.' },
    });
    const outcome = await remover().remove(request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'forbidden', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toContain('not allowed to delete');
  });

  it('5xx is a transient failure', async () => {
    const { request } = await published();
    fake.script({ error: { status: 503, title: 'Service Unavailable', detail: 'down' } });
    expect(await remover().remove(request)).toMatchObject({
      kind: 'failed',
      code: 'http_503',
      retryable: true,
    });
  });
});
