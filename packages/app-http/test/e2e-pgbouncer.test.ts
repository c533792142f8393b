/**
 * Production mode (PostgreSQL + BullMQ) behind PgBouncer in transaction pooling, as teams run
 * managed PostgreSQL: migrations, creates (with an Idempotency-Key replay), scheduled and
 * immediate publishing to a real adapter, webhooks. Transaction pooling gives each statement
 * or transaction whichever server connection is free, so any session state the service relied
 * on (session prepared statements, advisory locks, SET, LISTEN) would break here.
 */
import { describe, expect, it } from 'vitest';
import { type PgBouncer, pgBouncerUnavailable, startPgBouncer } from '../../testkit/src/index.ts';
import { waitFor } from './e2e/system.ts';
import { productionCheck, skippedNote, useSystem } from './e2e/use-system.ts';

const production = await productionCheck(pgBouncerUnavailable);
const POSTS = 40;

describe.skipIf(production.skipReason)(
  `behind PgBouncer (transaction pooling)${skippedNote(production.skipReason)}`,
  () => {
    let bouncer: PgBouncer | undefined;
    const e2e = useSystem('production', {
      database: production.database,
      // PgBouncer 1.18 in transaction pooling cannot keep named statements (docs/deploy.md).
      env: { DATABASE_PREPARED_STATEMENTS: 'false' },
      prepare: async (database) => {
        if (!database) throw new Error('no database');
        // A pool smaller than the service's own: server connections are shared between clients.
        bouncer = await startPgBouncer({
          serverUrl: database.url,
          poolMode: 'transaction',
          poolSize: 5,
        });
        return { databaseUrl: bouncer.via(database.url) };
      },
      release: () => bouncer?.close(),
    });

    it(`${POSTS} posts to a real adapter and a scheduled one all publish once; an idempotent replay creates nothing`, async () => {
      const system = e2e.get();
      const { api, tiktok } = system;
      const account = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform: 'tiktok',
        external_id: 'tt-pgbouncer',
        display_name: 'pgbouncer',
        access_token: 'token-pgbouncer',
      });
      expect(account.status).toBe(201);
      const body = (index: number) => ({
        content: `through the pooler ${index}`,
        social_account_ids: [account.body.data.id],
        media_urls: [system?.media.url(`pool-${index}.mp4`, 1024)],
      });
      const ids: string[] = [];
      for (let index = 0; index < POSTS; index++) {
        const created = await api.call<{ data: { id: string } }>('POST', '/posts', body(index), {
          'idempotency-key': `pool-${index}`,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        ids.push(created.body.data.id);
      }
      const replay = await api.call<{ data: { id: string } }>('POST', '/posts', body(0), {
        'idempotency-key': 'pool-0',
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.data.id).toBe(ids[0]);
      const scheduled = await api.call<{ data: { id: string } }>('POST', '/posts/schedule', {
        ...body(POSTS),
        scheduled_at: new Date(Date.now() + 2_000).toISOString(),
      });
      expect(scheduled.status).toBe(201);
      ids.push(scheduled.body.data.id);

      await waitFor(
        'every post published',
        async () => {
          const listed = await api.call<{ data: Array<{ id: string; status: string }> }>(
            'GET',
            '/posts',
          );
          const mine = listed.body.data.filter((post) => ids.includes(post.id));
          return mine.length === ids.length && mine.every((post) => post.status === 'published');
        },
        60_000,
        250,
      );
      expect(tiktok.publishes).toHaveLength(POSTS + 1);
      const errors = system.logs.filter((line) => line.level >= 50);
      expect(errors.map((line) => line.msg)).toEqual([]);
    }, 90_000);
  },
);
