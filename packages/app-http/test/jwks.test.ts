import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectError } from './support.ts';

let server: Server;
let jwksUrl: string;
let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  jwksUrl = `http://127.0.0.1:${address.port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const sign = (sub: string) =>
  new SignJWT({ sub })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);

describe('JWT with AUTH_JWKS_URL', () => {
  it('accepts a token signed by a key of the set', async () => {
    const h = await createHarness({ config: { authJwksUrl: jwksUrl } });
    const response = await h.call({
      method: 'GET',
      url: '/posts',
      headers: h.as(await sign('user-from-idp')),
    });
    expect(response.statusCode).toBe(200);
    await h.close();
  });

  it('rejects a token signed by another key (401)', async () => {
    const h = await createHarness({ config: { authJwksUrl: jwksUrl } });
    const other = await generateKeyPair('RS256');
    const forged = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setExpirationTime('5m')
      .sign(other.privateKey);
    expectError(
      await h.call({ method: 'GET', url: '/posts', headers: h.as(forged) }),
      401,
      'unauthorized',
    );
    await h.close();
  });

  it('an unreachable key set is a 503, not a 401 or a 500', async () => {
    const h = await createHarness({ config: { authJwksUrl: 'http://127.0.0.1:9/jwks.json' } });
    const response = await h.call({ method: 'GET', url: '/posts', headers: h.as(await sign('x')) });
    expectError(response, 503, 'auth_unavailable');
    await h.close();
  });
});
