// Google OAuth for YouTube over real HTTP against the local fake: the shared contract, then
// Google's own details (offline access, forced consent, no rotation), the channel lookup, and
// the publisher renewing tokens of the OAuth flow through the same request.
import { describe, expect, it } from 'vitest';
import { type FakeYoutube, startFakeYoutube } from './helpers.ts';
import {
  connectorFor,
  consent,
  describePkceConnector,
  expectNoSecrets,
  pkcePair,
} from './oauth-pkce-contract.ts';

const UPLOAD = 'https://www.googleapis.com/auth/youtube.upload';
const READONLY = 'https://www.googleapis.com/auth/youtube.readonly';
const MANAGE = 'https://www.googleapis.com/auth/youtube.force-ssl';

const flow = describePkceConnector<FakeYoutube>({
  platform: 'youtube',
  prefix: 'YOUTUBE',
  start: () => startFakeYoutube(),
  clientId: 'youtube-client-id',
  clientSecret: 'youtube-client-secret',
  authorizePath: '/o/oauth2/v2/auth',
  authorizeParams: {
    client_id: 'youtube-client-id',
    response_type: 'code',
    scope: `${UPLOAD} ${READONLY} ${MANAGE}`,
    access_type: 'offline',
    prompt: 'consent',
  },
  externalId: 'UC-fake-channel',
  displayName: 'Fake Channel',
  rotates: false,
  badCodeError: 'invalid_grant',
});

describe('youtube OAuth: Google specifics', () => {
  it('exchanges the code at /token (form) and reads the channel with channels?part=snippet&mine=true', async () => {
    const fake = flow.fake();
    const from = fake.requests.length;
    const { verifier, challenge } = pkcePair();
    const code = await flow.codeFor(challenge);
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome.ok).toBe(true);
    const seen = fake.requests.slice(from);
    const exchange = seen.find((r) => r.path === '/token');
    expect(exchange?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange?.body).toEqual({
      client_id: 'youtube-client-id',
      client_secret: 'youtube-client-secret',
      code,
      redirect_uri: flow.redirectUri,
      grant_type: 'authorization_code',
      code_verifier: verifier,
    });
    const channels = seen.find((r) => r.path === '/youtube/v3/channels');
    expect(channels?.query).toEqual({ part: 'snippet', mine: 'true' });
  });

  it('a Google account without a YouTube channel cannot connect, and is told why', async () => {
    const fake = flow.fake();
    const channel = fake.channel;
    fake.channel = null;
    try {
      const { verifier, challenge } = pkcePair();
      const code = await flow.codeFor(challenge);
      const outcome = await flow
        .connector()
        .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
      expect(outcome).toMatchObject({
        ok: false,
        error: { code: 'no_channel', message: expect.stringContaining('no YouTube channel') },
      });
      expectNoSecrets(fake, outcome, [code]);
    } finally {
      fake.channel = channel;
    }
  });

  it('a consent that left out the upload scope (granular consent) fails the connect', async () => {
    const { verifier, challenge } = pkcePair();
    const url = new URL(
      flow.connector().authorizationUrl({
        state: 's',
        redirectUri: flow.redirectUri,
        codeChallenge: challenge,
      }),
    );
    url.searchParams.set('scope', READONLY); // what Google grants when the box is unticked
    const code = (await consent(url.toString())).searchParams.get('code') ?? '';
    const outcome = await flow
      .connector()
      .connect({ code, codeVerifier: verifier, redirectUri: flow.redirectUri });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'scope_not_granted' } });
  });

  it('a refresh answers no refresh token; a wrong client secret fails without expiring the connection', async () => {
    const fake = flow.fake();
    const { tokens } = await flow.connected();
    const from = fake.requests.length;
    const renewed = await flow.connector().refresh?.({ externalId: 'UC-fake-channel', ...tokens });
    expect(renewed).toMatchObject({ kind: 'refreshed', tokens: { refreshToken: null } });
    expect(fake.requests.slice(from).find((r) => r.path === '/token')?.body).toEqual({
      client_id: 'youtube-client-id',
      client_secret: 'youtube-client-secret',
      refresh_token: tokens.refreshToken,
      grant_type: 'refresh_token',
    });

    const misconfigured = connectorFor('youtube', {
      ...flow.settings(),
      clientSecret: 'not-the-secret',
    });
    const outcome = await misconfigured.refresh?.({ externalId: 'UC-fake-channel', ...tokens });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('invalid_client'),
    });
  });
});
