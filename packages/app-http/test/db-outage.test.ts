/**
 * PostgreSQL unreachable under load (production mode: API + worker on PostgreSQL + BullMQ, the
 * database behind a TCP proxy the test cuts for 2.5 s): the API answers only 201 or 503 (with
 * Retry-After and the error envelope), /health says the database is down, the worker rides the
 * outage out, and every accepted post is published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTcpProxy, type TcpProxy } from '../../testkit/src/index.ts';
import { type System, sleep, startSystem, unavailable, waitFor } from './e2e/system.ts';

const database = await createTestDatabase();
const skipReason = await unavailable('production', database);

describe.skipIf(skipReason)(
  `PostgreSQL down under load${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let system: System | undefined;
    let proxy: TcpProxy;

    beforeAll(async () => {
      if (!database.url) throw new Error('no database');
      const target = new URL(database.url);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      system = await startSystem({
        mode: 'production',
        databaseUrl: proxy.via(database.url),
        // A target claimed just before the cut stays leased until its lease ends (then another
        // run resumes it): a short lease keeps the test short on a busy machine.
        env: { TARGET_LEASE_MS: '3000' },
      });
    }, 60_000);

    afterAll(async () => {
      try {
        await proxy?.restore();
        await system?.close();
        await proxy?.close();
      } finally {
        await database.drop();
      }
    }, 60_000);

    it('answers only 201 or 503 while the database is gone, and publishes every accepted post', async () => {
      if (!system) throw new Error('no system');
      const { api } = system;
      const account = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform: 'tiktok',
        sandbox: true,
        display_name: 'outage',
      });
      expect(account.status).toBe(201);
      const statuses = new Map<number, number>();
      const accepted: string[] = [];
      let unavailableBody: unknown;
      let retryAfter: string | null = null;

      const load = (async () => {
        const until = Date.now() + 6_000;
        let index = 0;
        while (Date.now() < until) {
          index += 1;
          const response = await api.call<{ data: { id: string } }>('POST', '/posts', {
            content: `outage ${index}`,
            social_account_ids: [account.body.data.id],
            media_urls: ['https://cdn.example.com/outage.mp4'],
          });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status === 201) accepted.push(response.body.data.id);
          if (response.status === 503) {
            unavailableBody = response.body;
            retryAfter = response.headers.get('retry-after');
          }
          await sleep(25);
        }
      })();

      await sleep(1_500);
      await proxy.cut();
      await sleep(1_000);
      const healthDuringOutage = (await api.call('GET', '/health')).body;
      await sleep(1_500);
      await proxy.restore();
      await load;

      expect([...statuses.keys()].sort()).toEqual([201, 503]);
      expect(unavailableBody).toMatchObject({ error: { code: 'service_unavailable' } });
      expect(retryAfter).toBe('5');
      expect(healthDuringOutage).toMatchObject({
        status: 'degraded',
        checks: { database: 'error' },
      });
      expect(accepted.length).toBeGreaterThan(20);

      await waitFor(
        'every accepted post to be published',
        async () => {
          const states = await Promise.all(
            accepted.map(
              async (id) =>
                (await api.call<{ data: { status: string } }>('GET', `/posts/${id}`)).body.data
                  ?.status,
            ),
          );
          return states.every((status) => status === 'published');
        },
        30_000,
        250,
      );
      const errors = system.logs.filter((line) => line.level >= 50);
      expect(errors.map((line) => line.msg)).toEqual([]);
    }, 60_000);
  },
);
