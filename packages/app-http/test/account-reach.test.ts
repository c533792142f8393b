/**
 * What a credential reaches across accounts, on real storage in both modes (embedded: PGlite +
 * in-process queue; production: PostgreSQL + BullMQ on Redis):
 *
 * - a team API key acts for its team only: it creates no workspace (403), while a personal key
 *   does;
 * - `GET /posts` without `workspace_id` lists only the accounts the caller can act in now: a
 *   member removed from a team no longer sees the team's posts, those they created there
 *   included; their personal posts stay listed.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreDeps } from '@social-publisher/domain';
import { createRuntime, loadRuntimeConfig } from '@social-publisher/runtime';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { buildApp } from '../src/app.ts';
import { deleteKeys, REDIS_URL, unavailable, uniquePrefix } from './e2e/system.ts';
import { seedUser } from './support.ts';

interface Api {
  app: FastifyInstance;
  deps: CoreDeps;
}

async function startApi(
  env: Record<string, string>,
  role: 'api' | 'embedded',
  close: Array<() => Promise<void>>,
): Promise<Api> {
  const config = loadRuntimeConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_MAX: '100000', ...env });
  const runtime = await createRuntime(config, pino({ level: 'silent' }), { role });
  close.push(() => runtime.close());
  const app = await buildApp({
    deps: runtime.deps,
    checks: runtime.checks,
    queueKind: runtime.queueKind,
    config,
    rateLimitRedis: runtime.rateLimitRedis,
    idempotencySweepMs: 0,
  });
  await app.ready();
  close.push(() => app.close());
  return { app, deps: runtime.deps };
}

interface Answer<T> {
  status: number;
  body: T;
}

async function call<T = { data: { id: string } }>(
  api: Api,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  key: string,
  payload?: object,
): Promise<Answer<T>> {
  const response = await api.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}` },
    ...(payload ? { payload } : {}),
  });
  return { status: response.statusCode, body: (response.body ? response.json() : {}) as T };
}

/** A created resource's id (asserting the 201). */
async function created(api: Api, url: string, key: string, payload: object): Promise<string> {
  const answer = await call(api, 'POST', url, key, payload);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id;
}

function defineScenarios(api: () => Api) {
  it('a team key creates no workspace (403 forbidden); a personal key does', async () => {
    const alice = await seedUser(api().deps);
    const teamId = await created(api(), '/workspaces', alice.rawKey, { name: 'acme' });
    const teamKey = await call<{ data: { key: string } }>(
      api(),
      'POST',
      '/api-keys',
      alice.rawKey,
      {
        name: 'team ci',
        workspace_id: teamId,
      },
    );
    expect(teamKey.status).toBe(201);

    const refused = await call<{ error: { code: string; message: string } }>(
      api(),
      'POST',
      '/workspaces',
      teamKey.body.data.key,
      { name: 'made by a team key' },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.message).toMatch(/team API key/);
    // Nothing was made: the creator is still in the one team.
    const teams = await call<{ data: Array<{ id: string }> }>(
      api(),
      'GET',
      '/workspaces',
      alice.rawKey,
    );
    expect(teams.body.data.map((team) => team.id)).toEqual([teamId]);
    // The team key still works in its team; the personal key still creates teams.
    expect((await call(api(), 'GET', '/posts', teamKey.body.data.key)).status).toBe(200);
    await created(api(), '/workspaces', alice.rawKey, { name: 'second' });
  });

  it('GET /posts lists only accounts the caller can act in now: a removed member loses the team', async () => {
    const alice = await seedUser(api().deps);
    const bob = await seedUser(api().deps);
    const teamId = await created(api(), '/workspaces', alice.rawKey, { name: 'acme' });
    const added = await call(api(), 'POST', `/workspaces/${teamId}/members`, alice.rawKey, {
      user_id: bob.user.id,
      role: 'member',
    });
    expect(added.status).toBe(201);
    const sandbox = { platform: 'twitter', sandbox: true };
    const teamConnection = await created(api(), '/social-accounts', bob.rawKey, {
      ...sandbox,
      workspace_id: teamId,
    });
    const ownConnection = await created(api(), '/social-accounts', bob.rawKey, sandbox);
    const inTeam = await created(api(), '/posts/schedule', bob.rawKey, {
      content: 'made in the team',
      social_account_ids: [teamConnection],
      scheduled_at: '2099-01-01T00:00:00Z',
      workspace_id: teamId,
    });
    const personal = await created(api(), '/posts/schedule', bob.rawKey, {
      content: 'my own',
      social_account_ids: [ownConnection],
      scheduled_at: '2099-01-01T00:00:00Z',
    });

    const listed = async (query = '') => {
      const answer = await call<{ data: Array<{ id: string }> }>(
        api(),
        'GET',
        `/posts${query}`,
        bob.rawKey,
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.data.map((post) => post.id).sort();
    };
    expect(await listed()).toEqual([inTeam, personal].sort());
    expect(await listed('?limit=10')).toEqual([inTeam, personal].sort());

    const removed = await call(
      api(),
      'DELETE',
      `/workspaces/${teamId}/members/${bob.user.id}`,
      alice.rawKey,
    );
    expect(removed.status).toBe(204);
    // Neither the whole list nor a page shows the team's post any more; the personal one stays.
    expect(await listed()).toEqual([personal]);
    expect(await listed('?limit=10')).toEqual([personal]);
    expect(await listed('?limit=1')).toEqual([personal]);
    expect((await call(api(), 'GET', `/posts?workspace_id=${teamId}`, bob.rawKey)).status).toBe(
      403,
    );
    expect((await call(api(), 'GET', `/posts/${inTeam}`, bob.rawKey)).status).toBe(404);
    // The team still has the post: its owner reaches it.
    expect((await call(api(), 'GET', `/posts/${inTeam}`, alice.rawKey)).status).toBe(200);

    // Back in the team, its posts are listed again.
    const readded = await call(api(), 'POST', `/workspaces/${teamId}/members`, alice.rawKey, {
      user_id: bob.user.id,
      role: 'member',
    });
    expect(readded.status).toBe(201);
    expect(await listed()).toEqual([inTeam, personal].sort());
  });
}

const database = await createTestDatabase();
const skipReason = await unavailable('production', database);
if (skipReason) await database.drop();

describe.skipIf(skipReason)(
  `what a credential reaches across accounts, production mode (PostgreSQL + BullMQ)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const close: Array<() => Promise<void>> = [];
    const prefix = uniquePrefix('account-reach');
    let api: Api;

    beforeAll(async () => {
      api = await startApi(
        {
          DATABASE_URL: database.url as string,
          REDIS_URL,
          QUEUE_PREFIX: prefix,
          ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        },
        'api',
        close,
      );
    }, 60_000);

    afterAll(async () => {
      for (const step of close.reverse()) await step();
      await deleteKeys(prefix);
      await database.drop();
    }, 60_000);

    defineScenarios(() => api);
  },
);

describe('what a credential reaches across accounts, embedded mode (PGlite + in-process queue)', () => {
  const close: Array<() => Promise<void>> = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-account-reach-'));
  let api: Api;

  beforeAll(async () => {
    api = await startApi({ DATA_DIR: dataDir }, 'embedded', close);
  }, 60_000);

  afterAll(async () => {
    for (const step of close.reverse()) await step();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  defineScenarios(() => api);
});
