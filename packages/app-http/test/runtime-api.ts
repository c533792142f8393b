/**
 * One API process on real storage, as main.ts wires it (createRuntime -> buildApp), answered
 * through `inject`, and the same scenarios run in both modes: embedded (PGlite + in-process
 * queue) and production (PostgreSQL + BullMQ on Redis; skipped, saying why, without them).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreDeps } from '@social-publisher/domain';
import { createRuntime, loadRuntimeConfig } from '@social-publisher/runtime';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { buildApp } from '../src/app.ts';
import { deleteKeys, REDIS_URL, unavailable, uniquePrefix } from './e2e/system.ts';

export interface RuntimeApi {
  app: FastifyInstance;
  deps: CoreDeps;
}

/** One API process as main.ts wires it; its closers are pushed onto `close`. */
export async function startApi(
  env: Record<string, string>,
  role: 'api' | 'embedded',
  close: Array<() => Promise<void>>,
  logger: pino.Logger = pino({ level: 'silent' }),
): Promise<RuntimeApi> {
  const config = loadRuntimeConfig({
    LOG_LEVEL: logger.level,
    RATE_LIMIT_MAX: '100000',
    ...env,
  });
  const runtime = await createRuntime(config, logger, { role });
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

export interface Answer<T> {
  status: number;
  headers: Record<string, unknown>;
  body: T;
}

/** One JSON request with `key` as the Bearer credential. */
export async function call<T = { data: { id: string } }>(
  api: RuntimeApi,
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
  const json = (response.headers['content-type'] ?? '').toString().includes('json');
  return {
    status: response.statusCode,
    headers: response.headers,
    body: (response.body && json ? response.json() : {}) as T,
  };
}

/** A created resource's id (asserting the 201). */
export async function created(
  api: RuntimeApi,
  url: string,
  key: string,
  payload: object,
): Promise<string> {
  const answer = await call(api, 'POST', url, key, payload);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id;
}

/** `define(api)` in a describe of each mode, `title` naming what they check. */
export async function inBothModes(
  title: string,
  define: (api: () => RuntimeApi) => void,
): Promise<void> {
  const database = await createTestDatabase();
  const skipReason = await unavailable('production', database);
  if (skipReason) await database.drop();

  describe.skipIf(skipReason)(
    `${title}, production mode (PostgreSQL + BullMQ)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
    () => {
      const close: Array<() => Promise<void>> = [];
      const prefix = uniquePrefix('runtime-api');
      const mediaDir = mkdtempSync(join(tmpdir(), 'sp-runtime-api-media-'));
      let api: RuntimeApi;

      beforeAll(async () => {
        api = await startApi(
          {
            DATABASE_URL: database.url as string,
            REDIS_URL,
            QUEUE_PREFIX: prefix,
            ENCRYPTION_KEY: randomBytes(32).toString('base64'),
            MEDIA_DIR: mediaDir,
          },
          'api',
          close,
        );
      }, 60_000);

      afterAll(async () => {
        for (const step of close.reverse()) await step();
        await deleteKeys(prefix);
        await database.drop();
        rmSync(mediaDir, { recursive: true, force: true });
      }, 60_000);

      define(() => api);
    },
  );

  describe(`${title}, embedded mode (PGlite + in-process queue)`, () => {
    const close: Array<() => Promise<void>> = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'sp-runtime-api-'));
    let api: RuntimeApi;

    beforeAll(async () => {
      api = await startApi({ DATA_DIR: dataDir }, 'embedded', close);
    }, 60_000);

    afterAll(async () => {
      for (const step of close.reverse()) await step();
      rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    define(() => api);
  });
}
