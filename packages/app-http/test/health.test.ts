import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('GET /health', () => {
  it('200 ok with checks.database and checks.queue (in-process queue), no credential needed', async () => {
    h = await createHarness();
    const response = await h.call({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      status: 'ok',
      service: 'social-publisher-api',
      timestamp: expect.any(String),
      checks: { database: 'ok', queue: 'ok' },
    });
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  });

  it('with Redis: checks.redis; 503 degraded with checks.redis "error" when the queue is down', async () => {
    h = await createHarness({ queueKind: 'redis' });
    expect((await h.call({ method: 'GET', url: '/health' })).json().checks).toEqual({
      database: 'ok',
      redis: 'ok',
    });
    h.health.queue = false;
    const response = await h.call({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({
      status: 'degraded',
      service: 'social-publisher-api',
      checks: { database: 'ok', redis: 'error' },
    });
  });

  it('503 degraded when the database is down', async () => {
    h = await createHarness();
    h.health.database = false;
    const response = await h.call({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({
      status: 'degraded',
      checks: { database: 'error', queue: 'ok' },
    });
  });

  it('a check that throws or hangs counts as down', async () => {
    const { buildApp } = await import('../src/app.ts');
    const { createTestDeps } = await import('@social-publisher/domain/testing');
    const { TEST_CONFIG } = await import('./support.ts');
    const app = await buildApp({
      deps: createTestDeps(),
      checks: {
        database: () => new Promise<boolean>(() => {}),
        queue: async () => {
          throw new Error('boom');
        },
      },
      queueKind: 'inprocess',
      config: TEST_CONFIG,
      healthTimeoutMs: 50,
    });
    const response = await app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json().checks).toEqual({ database: 'error', queue: 'error' });
    await app.close();
  });
});
