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

  it('health over the socket', async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { status: string }).status).toBe('ok');
  });
});
