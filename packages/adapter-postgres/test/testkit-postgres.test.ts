// The testkit helper that provides real PostgreSQL databases to test files.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, withDatabase } from '../../testkit/src/postgres.ts';

const serverUrl = process.env.DATABASE_URL;

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return rows.length === 1;
  } finally {
    await client.end();
  }
}

describe('testkit createTestDatabase', () => {
  it('without a URL and with Docker ruled out, reports why it skips', async () => {
    const result = await createTestDatabase({ serverUrl: '', docker: false });
    expect(result.skipReason).toBe('no DATABASE_URL (Docker not tried)');
    await result.drop();
  });

  it('without a URL, tries Docker: a database when an engine answers, else the reason', async () => {
    const result = await createTestDatabase({ serverUrl: '' });
    try {
      if (result.skipReason !== undefined) {
        expect(result.skipReason).toMatch(/^no DATABASE_URL and no Docker engine/);
      } else {
        expect(result.source).toBe('testcontainers');
      }
    } finally {
      await result.drop();
    }
  }, 120_000);

  it.runIf(serverUrl)('with DATABASE_URL, creates a fresh database and drops it', async () => {
    const one = await createTestDatabase();
    const two = await createTestDatabase();
    if (one.skipReason !== undefined || two.skipReason !== undefined) throw new Error('skipped');
    expect(one.name).not.toBe(two.name);
    expect(one.name).toMatch(/^sp_test_\d+_[0-9a-f]{8}$/);
    expect(one.url).toBe(withDatabase(serverUrl ?? '', one.name));
    expect(await databaseExists(one.name)).toBe(true);

    // Open connections do not prevent the drop (WITH (FORCE)).
    const client = new pg.Client({ connectionString: one.url });
    await client.connect();
    client.on('error', () => {});
    await one.drop();
    await one.drop();
    await two.drop();
    expect(await databaseExists(one.name)).toBe(false);
    expect(await databaseExists(two.name)).toBe(false);
    await client.end().catch(() => {});
  });

  it.runIf(serverUrl)('drops leftovers of crashed runs older than six hours', async () => {
    const stale = `sp_test_${Date.now() - 7 * 3_600_000}_deadbeef`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${stale}"`);
    await admin.end();
    const fresh = await createTestDatabase();
    await fresh.drop();
    expect(await databaseExists(stale)).toBe(false);
  });
});
