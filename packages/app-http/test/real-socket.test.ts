import { request } from 'node:http';
import { createTestDeps, seedUser } from '@social-publisher/domain/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { TEST_CONFIG } from './support.ts';

let app: FastifyInstance;
let base: string;
const deps = createTestDeps();

beforeAll(async () => {
  app = await buildApp({
    deps,
    checks: { database: async () => true, queue: async () => true },
    queueKind: 'inprocess',
    config: { ...TEST_CONFIG, bodyLimitBytes: 8192 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(() => app.close());

describe('over a real socket', () => {
  it('creates a key, a connection, a post, and lists it with fetch', async () => {
    const { rawKey } = await seedUser(deps, 'socket@example.com');
    const auth = { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' };
    const key = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'ci' }),
    });
    expect(key.status).toBe(201);
    const newKey = ((await key.json()) as { data: { key: string } }).data.key;
    const headers = { authorization: `Bearer ${newKey}`, 'content-type': 'application/json' };

    const connection = await fetch(`${base}/social-accounts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ platform: 'twitter', external_id: 'me', access_token: 'tok' }),
    });
    expect(connection.status).toBe(201);
    const connectionId = ((await connection.json()) as { data: { id: string } }).data.id;

    const post = await fetch(`${base}/posts`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'socket-1' },
      body: JSON.stringify({ content: 'over the wire', social_account_ids: [connectionId] }),
    });
    expect(post.status).toBe(201);
    expect(post.headers.get('location')).toMatch(/^\/posts\//);
    expect(post.headers.get('x-request-id')).toBeTruthy();

    const list = await fetch(`${base}/posts`, { headers });
    const body = (await list.json()) as { data: Array<{ content: string }> };
    expect(body.data.map((p) => p.content)).toEqual(['over the wire']);
  });

  it('413 for a large body and 401 without credentials, as JSON envelopes', async () => {
    const { rawKey } = await seedUser(deps);
    const big = await fetch(`${base}/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'x'.repeat(20_000) }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe(
      'payload_too_large',
    );
    const anonymous = await fetch(`${base}/posts`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it("methods no route has (QUERY, PROPFIND): 405 with the path's Allow, in the envelope", async () => {
    // fetch refuses such methods; node:http sends them as written, as any client may.
    const send = (method: string, path: string) =>
      new Promise<{ status: number; allow: string | undefined; body: string }>(
        (resolve, reject) => {
          const { port } = new URL(base);
          const outgoing = request({ host: '127.0.0.1', port, method, path }, (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              body += chunk;
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, allow: response.headers.allow, body }),
            );
          });
          outgoing.on('error', reject);
          outgoing.end();
        },
      );
    for (const method of ['QUERY', 'PROPFIND']) {
      const collection = await send(method, '/posts');
      expect(collection.status, collection.body).toBe(405);
      expect(collection.allow).toBe('GET, HEAD, POST');
      expect(JSON.parse(collection.body)).toEqual({
        error: { code: 'method_not_allowed', message: expect.stringContaining(method) },
      });
      const item = await send(method, '/posts/some-id?x=1');
      expect(item.status, item.body).toBe(405);
      expect(item.allow).toBe('DELETE, GET, HEAD, PATCH');
      const nowhere = await send(method, '/nowhere');
      expect(nowhere.status, nowhere.body).toBe(404);
      expect(JSON.parse(nowhere.body).error.code).toBe('route_not_found');
    }
  });

  it('a CSV refused for its header leaves the connection usable for the next request', async () => {
    const { rawKey } = await seedUser(deps, 'csv-socket@example.com');
    const headers = { authorization: `Bearer ${rawKey}`, 'content-type': 'text/csv' };
    // fetch keeps the connection alive and sends the next request on it.
    for (let i = 0; i < 3; i++) {
      const refused = await fetch(`${base}/posts/import`, {
        method: 'POST',
        headers,
        body: `content\nrow ${i}\n`,
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'invalid_csv',
      );
      const next = await fetch(`${base}/health`);
      expect(next.status).toBe(200);
    }
  });

  it('a URL over the header size limit: 431 headers_too_large, in the envelope', async () => {
    const response = await fetch(`${base}/posts/${'x'.repeat(20_000)}`);
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      error: { code: 'headers_too_large', message: expect.stringContaining('too large') },
    });
  });

  it('health over the socket', async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { status: string }).status).toBe('ok');
  });
});
