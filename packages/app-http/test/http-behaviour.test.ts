import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../src/app.ts';
import { createHarness, expectError, type Harness, TEST_CONFIG } from './support.ts';

let h: Harness;
afterEach(() => h?.close());

describe('authentication', () => {
  it('missing, wrong or malformed credentials: 401 with WWW-Authenticate: Bearer', async () => {
    h = await createHarness();
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer sp_wrongwrongwrongwrongwrongwrongwrongwrong' },
      { authorization: 'Bearer not-a-key' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { 'x-api-key': 'sp_nope' },
    ];
    for (const headers of cases) {
      const response = await h.call({ method: 'GET', url: '/posts', headers });
      expectError(response, 401, 'unauthorized');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('X-API-Key works like Authorization: Bearer; scheme is case-insensitive', async () => {
    h = await createHarness();
    expect(
      (await h.call({ method: 'GET', url: '/posts', headers: { 'x-api-key': h.alice.rawKey } }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await h.call({
          method: 'GET',
          url: '/posts',
          headers: { authorization: `bearer ${h.alice.rawKey}` },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('401 comes before body validation and before reading a large body', async () => {
    h = await createHarness({ config: { bodyLimitBytes: 2048 } });
    const response = await h.call({
      method: 'POST',
      url: '/posts',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ content: 'x'.repeat(10_000) }),
    });
    expectError(response, 401);
  });

  describe('JWT (AUTH_JWT_SECRET, HS256)', () => {
    const secret = 'a-very-long-test-secret-of-at-least-32-bytes!!';
    const sign = (claims: Record<string, unknown>, key = secret, expiresIn = '5m') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setExpirationTime(expiresIn)
        .sign(new TextEncoder().encode(key));

    it('a valid token acts as its sub; a first-seen sub becomes a user', async () => {
      h = await createHarness({ config: { authJwtSecret: secret } });
      const token = await sign({ sub: 'auth0|12345' });
      const first = await h.call({
        method: 'POST',
        url: '/workspaces',
        headers: h.as(token),
        payload: { name: 'jwt team' },
      });
      expect(first.statusCode).toBe(201);
      const list = await h.call({ method: 'GET', url: '/workspaces', headers: h.as(token) });
      expect(list.json().data).toHaveLength(1);
      expect(await h.deps.repos.accounts.findUserBySubject('auth0|12345')).not.toBeNull();
    });

    it('bad signature, expired, missing sub, alg none: 401', async () => {
      h = await createHarness({ config: { authJwtSecret: secret } });
      const forged = await sign({ sub: 'x' }, 'another-secret-that-is-also-long-enough!!');
      const expired = await new SignJWT({ sub: 'x' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(1_600_000_000)
        .setExpirationTime(1_600_000_100)
        .sign(new TextEncoder().encode(secret));
      const noSub = await sign({ name: 'nobody' });
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`;
      for (const token of [forged, expired, noSub, none, 'a.b.c']) {
        const response = await h.call({ method: 'GET', url: '/posts', headers: h.as(token) });
        expectError(response, 401, 'unauthorized');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      }
    });

    it('a token without exp is refused: 401', async () => {
      h = await createHarness({ config: { authJwtSecret: secret } });
      const forever = await new SignJWT({ sub: 'x' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .sign(new TextEncoder().encode(secret));
      const error = expectError(
        await h.call({ method: 'GET', url: '/posts', headers: h.as(forever) }),
        401,
        'unauthorized',
      );
      expect(error.message).toBe('the token has no exp claim: tokens must expire');
    });

    it('with AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE, iss and aud must match', async () => {
      h = await createHarness({
        config: {
          authJwtSecret: secret,
          authJwtIssuer: 'https://idp.example.com/',
          authJwtAudience: 'social-publisher',
        },
      });
      const right = { sub: 'x', iss: 'https://idp.example.com/', aud: 'social-publisher' };
      const get = async (claims: Record<string, unknown>) =>
        h.call({ method: 'GET', url: '/posts', headers: h.as(await sign(claims)) });
      expect((await get(right)).statusCode).toBe(200);
      expect((await get({ ...right, aud: ['other-app', 'social-publisher'] })).statusCode).toBe(
        200,
      );
      const refusals: Array<[Record<string, unknown>, string]> = [
        [{ ...right, iss: 'https://evil.example.com/' }, 'the token is from another issuer'],
        [{ sub: 'x', aud: 'social-publisher' }, 'the token has no iss claim'],
        [{ ...right, aud: 'other-app' }, 'the token is for another audience'],
        [{ sub: 'x', iss: 'https://idp.example.com/' }, 'the token has no aud claim'],
      ];
      for (const [claims, message] of refusals) {
        expect(expectError(await get(claims), 401, 'unauthorized').message).toBe(message);
      }
    });

    it('without AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE, iss and aud are not checked', async () => {
      h = await createHarness({ config: { authJwtSecret: secret } });
      const token = await sign({ sub: 'x', iss: 'anyone', aud: 'anything' });
      expect(
        (await h.call({ method: 'GET', url: '/posts', headers: h.as(token) })).statusCode,
      ).toBe(200);
    });

    it('without JWT config a token is just a wrong credential', async () => {
      h = await createHarness();
      const token = await sign({ sub: 'x' });
      expectError(await h.call({ method: 'GET', url: '/posts', headers: h.as(token) }), 401);
    });
  });
});

describe('request errors', () => {
  it('malformed JSON: 400 invalid_json', async () => {
    h = await createHarness();
    for (const payload of ['{', '{"content": }', 'nul']) {
      const response = await h.call({
        method: 'POST',
        url: '/posts',
        headers: { ...h.as(h.alice), 'content-type': 'application/json' },
        payload,
      });
      expectError(response, 400, 'invalid_json');
      expect(response.json().error.message).toBe('the request body is not valid JSON');
    }
  });

  it('JSON with a key that could reach a prototype: 400 invalid_json that says so', async () => {
    h = await createHarness();
    for (const payload of [
      '{"content":"hi","x":{"__proto__":1}}',
      '{"content":"hi","x":{"constructor":{"prototype":{}}}}',
    ]) {
      const response = await h.call({
        method: 'POST',
        url: '/posts/validate',
        headers: { ...h.as(h.alice), 'content-type': 'application/json' },
        payload,
      });
      expectError(response, 400, 'invalid_json');
      expect(response.json().error.message).toContain('__proto__');
    }
  });

  it('non-JSON content types on a route with a body: 415', async () => {
    h = await createHarness();
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ]) {
      const response = await h.call({
        method: 'POST',
        url: '/posts',
        headers: { ...h.as(h.alice), 'content-type': type },
        payload: 'content=hello',
      });
      expectError(response, 415, 'unsupported_media_type');
    }
    // A body without any content type is not JSON either.
    const untyped = await h.call({
      method: 'POST',
      url: '/api-keys',
      headers: { ...h.as(h.alice), 'content-length': '2' },
      payload: Buffer.from('{}'),
    });
    expectError(untyped, 415, 'unsupported_media_type');
  });

  it('a body over the limit: 413 payload_too_large', async () => {
    h = await createHarness({ config: { bodyLimitBytes: 4096 } });
    const response = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: { content: 'x'.repeat(5000) },
    });
    expectError(response, 413, 'payload_too_large');
  });

  it('unknown routes: 404 route_not_found; known path, wrong method: 405 with Allow', async () => {
    h = await createHarness();
    expectError(await h.call({ method: 'GET', url: '/nope' }), 404, 'route_not_found');
    expectError(
      await h.call({ method: 'GET', url: '/posts/1/2/3', headers: h.as(h.alice) }),
      404,
      'route_not_found',
    );
    const wrongMethod = await h.call({ method: 'PUT', url: '/posts/abc' });
    expectError(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    const patchCollection = await h.call({ method: 'PATCH', url: '/webhooks' });
    expectError(patchCollection, 405);
    expect(patchCollection.headers.allow).toBe('GET, HEAD, POST');
  });

  it('a fixed path beside an id route is its own resource: 405 with its methods, not the id route', async () => {
    h = await createHarness();
    for (const [method, url, allow] of [
      ['GET', '/social-accounts/connect', 'POST'],
      ['OPTIONS', '/social-accounts/connect', 'POST'],
      ['PATCH', '/posts/bulk', 'POST'],
      ['PATCH', '/posts/queue', 'POST'],
      ['DELETE', '/posts/validate', 'POST'],
      ['GET', '/posts/schedule', 'POST'],
    ] as const) {
      const response = await h.call({
        method: method as 'GET',
        url,
        headers: { ...h.as(h.alice), 'content-type': 'application/json' },
        payload: method === 'GET' || method === 'OPTIONS' ? undefined : '{}',
      });
      expectError(response, 405, 'method_not_allowed');
      expect(response.headers.allow, `${method} ${url}`).toBe(allow);
    }
    // The id routes still answer for ids, and for a name that is no fixed path.
    expectError(
      await h.call({ method: 'GET', url: '/posts/bulky', headers: h.as(h.alice) }),
      404,
      'not_found',
    );
  });

  it('405 comes before any look at the body: QUERY without Content-Type, PUT with bad JSON', async () => {
    h = await createHarness();
    const query = await h.call({ method: 'QUERY' as 'GET', url: '/webhooks' });
    expectError(query, 405, 'method_not_allowed');
    expect(query.headers.allow).toBe('GET, HEAD, POST');
    const badBody = await h.call({
      method: 'PUT',
      url: '/posts/abc',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    expectError(badBody, 405, 'method_not_allowed');
    const oddType = await h.call({
      method: 'PUT',
      url: '/nowhere',
      headers: { 'content-type': 'text/weird' },
      payload: 'x',
    });
    expectError(oddType, 404, 'route_not_found');
  });

  it('a malformed URL escape: 400 bad_request', async () => {
    h = await createHarness();
    const response = await h.call({
      method: 'GET',
      url: '/posts/%E0%A4%A',
      headers: h.as(h.alice),
    });
    expectError(response, 400, 'bad_request');
    expect(response.headers['x-request-id']).toBeTruthy();
  });

  it('wrong query types: 400 with the parameter named', async () => {
    h = await createHarness();
    const webhook = await h.call({
      method: 'POST',
      url: '/webhooks',
      headers: h.as(h.alice),
      payload: { url: 'https://h.example.com', events: ['post.failed'] },
    });
    const id = webhook.json().data.id;
    const response = await h.call({
      method: 'GET',
      url: `/webhooks/${id}/deliveries?limit=many`,
      headers: h.as(h.alice),
    });
    expect(expectError(response, 400, 'validation_failed').details?.[0]?.field).toBe('limit');
  });
});

describe('request ids', () => {
  it('every response carries X-Request-Id; a sane incoming one is kept, an odd one replaced', async () => {
    h = await createHarness();
    const kept = await h.call({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'abc-123_X.y' },
    });
    expect(kept.headers['x-request-id']).toBe('abc-123_X.y');
    const replaced = await h.call({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id "with" quotes' },
    });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const onError = await h.call({ method: 'GET', url: '/posts' });
    expect(onError.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const notFound = await h.call({ method: 'GET', url: '/missing' });
    expect(notFound.headers['x-request-id']).toBeTruthy();
  });
});

/** Attempt budgets: the given ones, the others out of the way. */
const attempts = (budgets: Partial<AppConfig['attemptLimits']>): AppConfig['attemptLimits'] => ({
  ...TEST_CONFIG.attemptLimits,
  ...budgets,
});

describe('rate limiting', () => {
  it('per credential: 429 rate_limited with Retry-After past the limit; other credentials unaffected', async () => {
    h = await createHarness({ config: { rateLimit: { max: 3, windowMs: 60_000 } } });
    for (let i = 0; i < 3; i++) {
      const ok = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await h.call({ method: 'GET', url: '/posts', headers: h.as(h.bob) })).statusCode).toBe(
      200,
    );
    // Health is never limited.
    expect((await h.call({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('failed authentication is limited per client address', async () => {
    h = await createHarness({ config: { attemptLimits: attempts({ authFailures: 2 }) } });
    expectError(await h.call({ method: 'GET', url: '/posts' }), 401);
    expectError(await h.call({ method: 'GET', url: '/posts' }), 401);
    const limited = await h.call({ method: 'GET', url: '/posts' });
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toBeDefined();
  });

  describe('the client address behind proxies (TRUST_PROXY)', () => {
    /** A failed authentication from `remoteAddress`, saying it forwards for `forwardedFor`. */
    const failedFrom = (remoteAddress: string, forwardedFor?: string) =>
      h.call({
        method: 'GET',
        url: '/posts',
        remoteAddress,
        headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      });
    const limit = attempts({ authFailures: 2 });

    it('not set: X-Forwarded-For is ignored, so a client cannot choose a fresh address', async () => {
      h = await createHarness({ config: { attemptLimits: limit } });
      expectError(await failedFrom('192.0.2.1', '203.0.113.1'), 401);
      expectError(await failedFrom('192.0.2.1', '203.0.113.2'), 401);
      expectError(await failedFrom('192.0.2.1', '203.0.113.3'), 429, 'rate_limited');
    });

    it('the proxies by address: each client behind them has its own budget', async () => {
      h = await createHarness({ config: { attemptLimits: limit, trustProxy: ['10.0.0.0/8'] } });
      expectError(await failedFrom('10.1.2.3', '203.0.113.1'), 401);
      expectError(await failedFrom('10.1.2.3', '203.0.113.1'), 401);
      expectError(await failedFrom('10.1.2.3', '203.0.113.1'), 429, 'rate_limited');
      // Another client behind the same proxy is not held up by the first one's failures.
      expectError(await failedFrom('10.1.2.3', '203.0.113.2'), 401);
      // An address the client wrote before the proxy's own entry does not count: the first
      // address not of a trusted proxy, read from the proxy's end, is the client.
      expectError(await failedFrom('10.1.2.3', '198.51.100.7, 203.0.113.1'), 429, 'rate_limited');
      // Not a trusted proxy: its own address counts, whatever header it sends.
      expectError(await failedFrom('192.0.2.9', '203.0.113.2'), 401);
      expectError(await failedFrom('192.0.2.9', '203.0.113.3'), 401);
      expectError(await failedFrom('192.0.2.9', '203.0.113.4'), 429, 'rate_limited');
    });
  });

  it('a failing store lets requests through', async () => {
    h = await createHarness({
      config: { rateLimit: { max: 1, windowMs: 60_000 } },
      rateLimitStore: {
        hit: async () => {
          throw new Error('redis down');
        },
        peek: async () => {
          throw new Error('redis down');
        },
        close: async () => {},
      },
    });
    for (let i = 0; i < 3; i++) {
      expect(
        (await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) })).statusCode,
      ).toBe(200);
    }
  });
});

describe('unexpected failures', () => {
  it('a storage failure is a 500 internal_error envelope, logged, without internals', async () => {
    h = await createHarness();
    h.deps.store.failNext('posts.listByCreator', new Error('connection reset by peer'));
    const response = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    expectError(response, 500, 'internal_error');
    expect(response.body).not.toContain('connection reset');
  });
});
