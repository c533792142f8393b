// No log line carries a credential: the access log of an OAuth callback and of requests with
// keys in the query or headers, Fastify's own request and error lines, and nested errors.
import { Writable } from 'node:stream';
import { PLATFORM_DESCRIPTORS } from '@social-publisher/adapter-platforms';
import { ScriptedOAuth, ScriptedPlatformRegistry } from '@social-publisher/domain/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from '../src/logger.ts';
import { createHarness, type Harness } from './support.ts';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ logLevel: 'debug' }, { destination: sink });
  return {
    logger,
    text: () => lines.join(''),
    parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

let h: Harness | undefined;
afterEach(() => h?.close());

describe('access log lines', () => {
  it('an OAuth callback and the consent link: the route and the query names, never the code or state', async () => {
    const log = capture();
    const tiktok = new ScriptedOAuth('tiktok');
    h = await createHarness({
      logger: log.logger,
      platforms: new ScriptedPlatformRegistry(
        PLATFORM_DESCRIPTORS.map((descriptor) => descriptor.rules),
      ).withOAuth(tiktok),
    });
    const started = await h.call({
      method: 'POST',
      url: '/social-accounts/connect',
      headers: h.as(h.alice),
      payload: { platform: 'tiktok' },
    });
    const { state } = started.json().data;
    const opened = await h.call({ method: 'GET', url: `/oauth/authorize/tiktok?state=${state}` });
    const cookie = String(opened.headers['set-cookie']).split(';')[0] ?? '';
    const nonce = cookie.split('=')[1] ?? '';
    const code = 'the-platforms-one-time-code';
    const done = await h.call({
      method: 'GET',
      url: `/oauth/callback/tiktok?code=${code}&state=${state}&scope=publish`,
      headers: { cookie },
    });
    expect(done.statusCode).toBe(200);

    const text = log.text();
    for (const secret of [state, code, nonce, h.alice.rawKey]) expect(text).not.toContain(secret);
    const access = log.parsed().filter((line) => line.msg === 'request');
    expect(access.map((line) => line.url)).toEqual([
      '/social-accounts/connect',
      '/oauth/authorize/tiktok?state=[redacted]',
      '/oauth/callback/tiktok?code=[redacted]&state=[redacted]&scope=publish',
    ]);
  });

  it('keys and tokens in the query or the headers of any request stay out', async () => {
    const log = capture();
    h = await createHarness({ logger: log.logger });
    const secrets = ['sp_query_key_value', 'query-token-value', 'header-key', 'cookie-value'];
    await h.call({
      method: 'GET',
      url: `/posts?api_key=${secrets[0]}&access_token=${secrets[1]}&limit=2`,
      headers: { 'x-api-key': `sp_${secrets[2]}`, cookie: `sid=${secrets[3]}` },
    });
    await h.call({
      method: 'GET',
      url: `/nowhere?token=${secrets[1]}`,
      headers: { authorization: `Bearer ${secrets[0]}` },
    });
    const text = log.text();
    for (const secret of secrets) expect(text).not.toContain(secret);
    const urls = log
      .parsed()
      .filter((line) => line.msg === 'request')
      .map((line) => line.url);
    expect(urls).toEqual([
      '/posts?api_key=[redacted]&access_token=[redacted]&limit=2',
      '/nowhere?token=[redacted]',
    ]);
  });
});

describe('the logger itself', () => {
  it('a request object is logged as method, redacted URL and address, never its headers', () => {
    const log = capture();
    log.logger.info(
      {
        req: {
          method: 'GET',
          url: '/oauth/callback/x?code=c0de-secret&state=st-secret',
          ip: '203.0.113.9',
          headers: { authorization: 'Bearer sp_hdr_secret', cookie: 'sp_oauth_1=nonce-secret' },
        },
      },
      'incoming request',
    );
    const text = log.text();
    expect(text).not.toMatch(/secret/);
    expect(log.parsed()[0]?.req).toEqual({
      method: 'GET',
      url: '/oauth/callback/x?code=[redacted]&state=[redacted]',
      ip: '203.0.113.9',
    });
  });

  it('errors are scrubbed at any depth: headers, tokens and URLs with credentials', () => {
    const log = capture();
    const error = Object.assign(new Error('exchange failed'), {
      url: 'https://api.example.com/token?client_secret=cs-secret&code=c-secret',
      cause: {
        request: {
          options: {
            headers: { Authorization: 'Bearer deep-secret', 'X-API-Key': 'sp_deep_secret' },
            body: { refresh_token: 'rt-secret', note: 'kept' },
          },
        },
      },
    });
    log.logger.error({ err: error }, 'unexpected error');
    const text = log.text();
    for (const secret of ['cs-secret', 'c-secret', 'deep-secret', 'sp_deep_secret', 'rt-secret']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('exchange failed');
    expect(text).toContain('kept');
    expect(text).toContain(
      'https://api.example.com/token?client_secret=[redacted]&code=[redacted]',
    );
  });

  it('redactUrl keeps the path, the other parameters and the fragment', () => {
    expect(redactUrl('/posts')).toBe('/posts');
    expect(redactUrl('/a?limit=2&cursor=abc')).toBe('/a?limit=2&cursor=abc');
    expect(redactUrl('/a?Code=1&x&oauth_verifier=v&hub.signature=s&state=#f')).toBe(
      '/a?Code=[redacted]&x&oauth_verifier=[redacted]&hub.signature=[redacted]&state=[redacted]#f',
    );
    expect(redactUrl('/a?%63ode=1&bad%=2')).toBe('/a?%63ode=[redacted]&bad%=2');
  });
});
