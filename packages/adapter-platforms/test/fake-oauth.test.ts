// The test kit's FakeOAuthProvider on its own (testkit has no test folder): the checks every
// platform fake relies on, so a fake that mounts it cannot be laxer than a real provider.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type FakeOAuthOptions, FakeOAuthProvider } from './helpers.ts';

const REDIRECT = 'https://app.example/callback';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

function provider(options: Partial<FakeOAuthOptions> = {}) {
  return new FakeOAuthProvider({
    clientId: 'id',
    clientSecret: 'secret',
    pkce: 'required',
    ...options,
  });
}

function codeOf(
  p: FakeOAuthProvider,
  extra: { scope?: string; challenge?: string | undefined } = {},
) {
  const answer = p.authorize({
    clientId: 'id',
    redirectUri: REDIRECT,
    state: 'st',
    scope: extra.scope ?? 'a b',
    codeChallenge: 'challenge' in extra ? extra.challenge : CHALLENGE,
    codeChallengeMethod: 'S256',
  });
  if (!('redirect' in answer)) throw new Error(answer.description);
  const back = new URL(answer.redirect);
  expect(back.searchParams.get('state')).toBe('st');
  return back.searchParams.get('code') ?? '';
}

const exchange = (p: FakeOAuthProvider, code: string, overrides: Record<string, string> = {}) =>
  p.exchangeCode({
    code,
    clientId: 'id',
    clientSecret: 'secret',
    redirectUri: REDIRECT,
    codeVerifier: VERIFIER,
    ...overrides,
  });

describe('FakeOAuthProvider', () => {
  it('refuses an unknown client or a missing redirect_uri before any redirect', () => {
    const p = provider();
    const base = { redirectUri: REDIRECT, state: 's', scope: '', codeChallenge: CHALLENGE };
    expect(p.authorize({ ...base, clientId: 'other' })).toMatchObject({
      status: 400,
      error: 'invalid_client',
    });
    expect(p.authorize({ ...base, clientId: 'id', redirectUri: undefined })).toMatchObject({
      status: 400,
      error: 'invalid_request',
    });
  });

  it('issues random single-use codes and tokens with the consented scopes', () => {
    const p = provider({ accessTokenTtlSeconds: 60 });
    const codes = [codeOf(p), codeOf(p)];
    expect(codes[0]).not.toBe(codes[1]);
    expect(codes[0]).toMatch(/^code-[\w-]{24}$/);
    const answer = exchange(p, codes[0] ?? '');
    expect(answer).toMatchObject({ ok: true, tokens: { expiresIn: 60, scopes: ['a', 'b'] } });
    if (!answer.ok) throw new Error('refused');
    expect(answer.tokens.accessToken).toMatch(/^access-[\w-]{24}$/);
    expect(p.isValidAccessToken(answer.tokens.accessToken)).toBe(true);
    expect(p.issuedRefreshToken(answer.tokens.refreshToken ?? undefined)).toBe(true);
    expect(exchange(p, codes[0] ?? '')).toMatchObject({ ok: false, error: 'invalid_grant' });
  });

  it('checks the client secret, redirect_uri and the PKCE verifier (S256)', () => {
    const p = provider();
    expect(exchange(p, codeOf(p), { clientSecret: 'wrong' })).toMatchObject({
      ok: false,
      status: 401,
      error: 'invalid_client',
    });
    expect(exchange(p, codeOf(p), { redirectUri: `${REDIRECT}/x` })).toMatchObject({
      error: 'invalid_grant',
    });
    expect(exchange(p, codeOf(p), { codeVerifier: 'w'.repeat(43) })).toMatchObject({
      error: 'invalid_grant',
    });
    // required: no challenge -> the browser comes back with an error, no code
    const answer = p.authorize({
      clientId: 'id',
      redirectUri: REDIRECT,
      state: 's',
      scope: '',
    });
    expect('redirect' in answer && new URL(answer.redirect).searchParams.get('error')).toBe(
      'invalid_request',
    );
    // optional: without a challenge, no verifier is needed
    const optional = provider({ pkce: 'optional' });
    const code = codeOf(optional, { challenge: undefined });
    expect(exchange(optional, code, { codeVerifier: '' })).toMatchObject({ ok: true });
  });

  it('scripts a denied consent, a refused exchange and a failed refresh, once each', () => {
    const p = provider();
    p.denyNextConsent('access_denied', 'no');
    const denied = p.authorize({
      clientId: 'id',
      redirectUri: REDIRECT,
      state: 's',
      scope: '',
      codeChallenge: CHALLENGE,
      codeChallengeMethod: 'S256',
    });
    const back = 'redirect' in denied ? new URL(denied.redirect) : undefined;
    expect(back?.searchParams.get('error')).toBe('access_denied');
    expect(back?.searchParams.get('error_description')).toBe('no');
    const code = codeOf(p);
    p.failNextExchange('invalid_request', 'scripted');
    expect(exchange(p, code)).toMatchObject({
      ok: false,
      error: 'invalid_request',
      scripted: true,
    });
    const answer = exchange(p, code); // the scripted refusal did not spend the code
    if (!answer.ok) throw new Error('refused');
    const refreshToken = answer.tokens.refreshToken ?? '';
    p.failNextRefresh();
    const input = { refreshToken, clientId: 'id', clientSecret: 'secret' };
    expect(p.refresh(input)).toMatchObject({ ok: false, status: 500, scripted: true });
    expect(p.refresh(input)).toMatchObject({ ok: true, tokens: { refreshToken: null } });
  });

  it('rotates refresh tokens when asked; revoke and revokeAll make refreshes invalid_grant', () => {
    const p = provider({ rotateRefreshTokens: true });
    const first = exchange(p, codeOf(p));
    if (!first.ok) throw new Error('refused');
    const input = {
      refreshToken: first.tokens.refreshToken ?? '',
      clientId: 'id',
      clientSecret: 'secret',
    };
    const second = p.refresh(input);
    if (!second.ok) throw new Error('refused');
    expect(second.tokens.refreshToken).toMatch(/^refresh-/);
    expect(second.tokens.refreshToken).not.toBe(input.refreshToken);
    expect(p.refresh(input)).toMatchObject({ ok: false, error: 'invalid_grant' });

    const next = { ...input, refreshToken: second.tokens.refreshToken ?? '' };
    p.revoke(next.refreshToken);
    expect(p.refresh(next)).toMatchObject({ ok: false, error: 'invalid_grant' });

    const other = exchange(p, codeOf(p));
    if (!other.ok) throw new Error('refused');
    p.revokeAll();
    expect(p.isValidAccessToken(other.tokens.accessToken)).toBe(false);
    expect(p.refresh({ ...input, refreshToken: other.tokens.refreshToken ?? '' })).toMatchObject({
      ok: false,
      error: 'invalid_grant',
    });
    expect(p.issued).toHaveLength(3);
  });

  it('can issue no refresh token at all', () => {
    const p = provider({ issueRefreshTokens: false, pkce: 'none' });
    const answer = exchange(p, codeOf(p, { challenge: undefined }), { codeVerifier: '' });
    expect(answer).toMatchObject({ ok: true, tokens: { refreshToken: null } });
  });
});
