// The embedded database's own vacuum: PGlite has no autovacuum daemon, so the adapter vacuums
// and analyses its tables on a schedule (embedded-vacuum.ts).
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { vacuumTables } from '../src/embedded-vacuum.ts';
import { type Backend, openPgliteBackend } from './backends.ts';

/** What PostgreSQL keeps of a table that only VACUUM and ANALYZE write. */
async function tableState(backend: Backend, table: string) {
  const { rows } = await sql<{ reltuples: number; relallvisible: number }>`
    select reltuples::float8 as reltuples, relallvisible from pg_class
    where relname = ${table} and relnamespace = 'public'::regnamespace`.execute(backend.handle.db);
  return rows[0];
}

/** Rows written, then every one changed, leaving a dead version of each. */
async function churn(backend: Backend): Promise<void> {
  const { db } = backend.handle;
  await sql`insert into idempotency_keys (scope, key, request_hash, status_code, response_body,
                                          created_at, expires_at)
    select 'vacuum-test', 'key-' || n, repeat('0', 64), 201, '{}', now(), now() + interval '1 day'
    from generate_series(1, 2000) as n`.execute(db);
  await sql`update idempotency_keys set status_code = 200 where scope = 'vacuum-test'`.execute(db);
}

describe('embedded vacuum (PGlite)', () => {
  const open: Backend[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((backend) => backend.close()));
  });

  it('PGlite never vacuums or analyses a table of its own', async () => {
    const backend = await openPgliteBackend({ embeddedVacuumIntervalMs: 3_600_000 });
    open.push(backend);
    await churn(backend);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await tableState(backend, 'idempotency_keys')).toEqual({
      reltuples: -1,
      relallvisible: 0,
    });
  });

  it('a pass vacuums and analyses every table, one statement each', async () => {
    const backend = await openPgliteBackend({ embeddedVacuumIntervalMs: 3_600_000 });
    open.push(backend);
    await churn(backend);
    const report = await vacuumTables(backend.handle.db);
    expect(report.tables).toBeGreaterThanOrEqual(23);
    const state = await tableState(backend, 'idempotency_keys');
    expect(state?.reltuples).toBe(2000);
    expect(state?.relallvisible).toBeGreaterThan(0);
    expect((await tableState(backend, 'posts'))?.reltuples).toBe(0);
  });

  it('an aborted pass stops between two tables', async () => {
    const backend = await openPgliteBackend({ embeddedVacuumIntervalMs: 3_600_000 });
    open.push(backend);
    const stopping = new AbortController();
    stopping.abort();
    expect((await vacuumTables(backend.handle.db, stopping.signal)).tables).toBe(0);
  });

  it('runs on its schedule, and stops with the database', async () => {
    const backend = await openPgliteBackend({ embeddedVacuumIntervalMs: 200 });
    open.push(backend);
    await churn(backend);
    const deadline = Date.now() + 10_000;
    while ((await tableState(backend, 'idempotency_keys'))?.reltuples !== 2000) {
      if (Date.now() > deadline) throw new Error('no scheduled vacuum within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await backend.close();
    open.splice(open.indexOf(backend), 1);
  });
});
