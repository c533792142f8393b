// The lookup cache on a real PostgreSQL shared by several processes (here: several pools):
// lookups are answered from memory only while change notices are heard, a write by anyone
// else empties every cache, and a listener that cannot hear (connection killed, trigger gone)
// turns the cache off.

import { type AddressInfo, createServer, type Socket } from 'node:net';
import type { Repositories } from '@social-publisher/domain';
import {
  makeApiKey,
  makeSocialAccount,
  makeWebhook,
  seedUser,
} from '@social-publisher/domain/contracts/storage-fixtures';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type PgBouncer,
  pgBouncerUnavailable,
  startPgBouncer,
} from '../../testkit/src/pgbouncer.ts';
import { createKysely } from '../src/database.ts';
import { type DatabaseHandle, openDatabase } from '../src/index.ts';
import { createLookupCache, type LookupCache, lookupCacheOf } from '../src/lookup-cache.ts';
import { startLookupListener } from '../src/lookup-listener.ts';
import type { Database } from '../src/schema.ts';
import { createPostgresDatabase } from './backends.ts';

const database = await createPostgresDatabase();
const bouncerSkip = pgBouncerUnavailable();

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

if (database.skipReason !== undefined) {
  describe('lookup cache on PostgreSQL', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  const url = database.url;
  /** Another process's write: a plain connection, not this process's repositories. */
  const elsewhere = async (text: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text, values);
    } finally {
      await client.end();
    }
  };

  describe('lookup cache on PostgreSQL', () => {
    const handles: DatabaseHandle[] = [];
    const open = async (lookupCache: boolean) => {
      const handle = await openDatabase({
        databaseUrl: url,
        dataDir: '.data',
        migrate: handles.length === 0,
        lookupCache,
      });
      handles.push(handle);
      return handle;
    };
    const trusted = (handle: DatabaseHandle) =>
      until(() => lookupCacheOf(handle.db)?.trusted === true, 'the cache to be trusted');

    afterAll(async () => {
      for (const handle of handles) await handle.close();
      await database.drop();
    });

    /** The notices of this process's own writes come back too, and empty the cache once more. */
    const echoes = () => new Promise((resolve) => setTimeout(resolve, 200));

    async function cachedKey(repos: Repositories) {
      const user = await seedUser(repos);
      const key = makeApiKey(user.id, user.id);
      await repos.apiKeys.insert(key);
      await echoes();
      expect(await repos.apiKeys.findByHash(key.keyHash)).toEqual(key);
      return key;
    }

    it('answers from memory, and forgets a key that another process revoked', async () => {
      const handle = await open(true);
      await trusted(handle);
      const key = await cachedKey(handle.repos);
      // Changed with the triggers off (no notice): the answer still comes from memory, so the
      // cache really is used...
      await elsewhere(
        `begin; set local session_replication_role = replica;
         update api_keys set name = 'renamed unseen' where id = '${key.id}'; commit`,
      );
      expect((await handle.repos.apiKeys.findByHash(key.keyHash))?.name).toBe(key.name);
      // ...and a revoke with its notice is seen at once.
      await elsewhere('delete from api_keys where id = $1', [key.id]);
      await until(
        async () => (await handle.repos.apiKeys.findByHash(key.keyHash)) === null,
        'the revoked key to be refused',
        2_000,
      );
    });

    it("sends no notice for a key's last-used time alone (each key in use writes it every minute)", async () => {
      const handle = await open(true);
      await trusted(handle);
      const key = await cachedKey(handle.repos);
      await elsewhere('update api_keys set last_used_at = now() where id = $1', [key.id]);
      await echoes();
      // Renamed without a notice: still the cached name, so the touch above emptied nothing.
      await elsewhere(
        `begin; set local session_replication_role = replica;
         update api_keys set name = 'renamed unseen' where id = '${key.id}'; commit`,
      );
      expect((await handle.repos.apiKeys.findByHash(key.keyHash))?.name).toBe(key.name);
      // Any other change to the key does send one.
      await elsewhere(`update api_keys set name = 'renamed' where id = $1`, [key.id]);
      await until(
        async () => (await handle.repos.apiKeys.findByHash(key.keyHash))?.name === 'renamed',
        'the renamed key to be seen',
        2_000,
      );
    });

    it('sees another process mark a connection expired', async () => {
      const handle = await open(true);
      await trusted(handle);
      const user = await seedUser(handle.repos);
      const account = makeSocialAccount(user.id);
      await handle.repos.socialAccounts.insert(account);
      await echoes();
      expect((await handle.repos.socialAccounts.findByIds([account.id]))[0]?.status).toBe('active');
      await elsewhere(`update social_accounts set status = 'expired' where id = $1`, [account.id]);
      await until(
        async () =>
          (await handle.repos.socialAccounts.findByIds([account.id]))[0]?.status === 'expired',
        'the expired status to be seen',
        2_000,
      );
    });

    it('sees another process disable a webhook, and hears nothing of a failure streak', async () => {
      const handle = await open(true);
      await trusted(handle);
      const user = await seedUser(handle.repos);
      const hook = makeWebhook(user.id, user.id, { events: ['post.created'] });
      await handle.repos.webhooks.insert(hook);
      await echoes();
      const receivers = () =>
        handle.repos.webhooks.listActiveForEvent(user.id, 'post.created', undefined);
      expect((await receivers()).map((row) => row.id)).toEqual([hook.id]);
      await elsewhere('update webhooks set failing_since = now() where id = $1', [hook.id]);
      await echoes();
      // Changed without a notice: still the cached list, so the streak above emptied nothing.
      await elsewhere(
        `begin; set local session_replication_role = replica;
         update webhooks set url = 'https://unseen.example.test/' where id = '${hook.id}'; commit`,
      );
      expect((await receivers())[0]?.url).toBe(hook.url);
      await elsewhere('update webhooks set active = false where id = $1', [hook.id]);
      await until(async () => (await receivers()).length === 0, 'the disabled webhook', 2_000);
    });

    it('keeps nothing when turned off', async () => {
      const handle = await open(false);
      const key = await cachedKey(handle.repos);
      await elsewhere(
        `begin; set local session_replication_role = replica;
         update api_keys set name = 'renamed unseen' where id = '${key.id}'; commit`,
      );
      expect((await handle.repos.apiKeys.findByHash(key.keyHash))?.name).toBe('renamed unseen');
    });

    /** A listener of its own with quick pings, on a pool of its own; closed after `work`. */
    async function withListener(
      work: (cache: LookupCache, db: Kysely<Database>) => Promise<void>,
      { via = url, trustedFirst = true } = {},
    ): Promise<void> {
      const { db } = createKysely({ databaseUrl: via, dataDir: '.data' });
      const cache = createLookupCache(db);
      const listener = startLookupListener({
        databaseUrl: via,
        cache,
        db,
        pingEveryMs: 100,
        pingTimeoutMs: 300,
        reconnectMs: 50,
      });
      try {
        if (trustedFirst) await until(() => cache.trusted, 'the cache to be trusted');
        await work(cache, db);
      } finally {
        await listener.close();
        await db.destroy();
      }
    }

    it('turns off when its listener connection is killed, and on again once it hears', () =>
      withListener(async (cache) => {
        const dbName = new URL(url).pathname.slice(1);
        await elsewhere(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where application_name = 'social-publisher-lookups' and datname = $1`,
          [dbName],
        );
        await until(() => !cache.trusted, 'the cache to be turned off', 2_000);
        await until(() => cache.trusted, 'the cache to be trusted again');
      }));

    it('stays off while a trigger is missing (writers would send no notice)', () =>
      withListener(async (cache, db) => {
        const trigger = (on: boolean) =>
          sql`alter table social_accounts ${sql.raw(on ? 'enable' : 'disable')} trigger social_accounts_lookups_changed`.execute(
            db,
          );
        await trigger(false);
        try {
          await until(() => !cache.trusted, 'the cache to be turned off', 2_000);
          await new Promise((resolve) => setTimeout(resolve, 400));
          expect(cache.trusted).toBe(false);
        } finally {
          await trigger(true);
        }
        await until(() => cache.trusted, 'the cache to be trusted again');
      }));

    it('closes at once while its connection is still being opened', async () => {
      // A server that accepts and never answers: opening the listener would wait 10 s.
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      const { db } = createKysely({ databaseUrl: url, dataDir: '.data' });
      const cache = createLookupCache(db);
      const listener = startLookupListener({
        databaseUrl: `postgres://postgres@127.0.0.1:${port}/nothing`,
        cache,
        db,
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = Date.now();
        await listener.close();
        expect(Date.now() - started).toBeLessThan(1_000);
        expect(cache.trusted).toBe(false);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
        await db.destroy();
      }
    });

    describe.skipIf(bouncerSkip !== undefined)(
      `behind PgBouncer in transaction pooling${bouncerSkip ? ` (skipped: ${bouncerSkip})` : ''}`,
      () => {
        let bouncer: PgBouncer | undefined;
        afterAll(async () => {
          await bouncer?.close();
        });

        it('never trusts the cache: LISTEN cannot hear through transaction pooling', async () => {
          bouncer = await startPgBouncer({ serverUrl: url, poolMode: 'transaction', poolSize: 2 });
          await withListener(
            async (cache, db) => {
              // Lookups work (through the database), and several pings go unanswered.
              await sql`select 1`.execute(db);
              await new Promise((resolve) => setTimeout(resolve, 1_500));
              expect(cache.trusted).toBe(false);
            },
            { via: bouncer.via(url), trustedFirst: false },
          );
        });
      },
    );
  });
}
