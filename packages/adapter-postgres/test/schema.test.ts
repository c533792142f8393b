// The schema on both backends: column types, CHECK constraints mirroring the domain limits,
// foreign-key rules, the indexes the queries rely on. Raw SQL on purpose: the constraints must
// hold even for writes that bypass the repositories.
import {
  makeAttempt,
  makeDelivery,
  makePost,
  makeSocialAccount,
  makeWebhook,
  seedUser,
} from '@social-publisher/domain/contracts/storage-fixtures';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/index.ts';
import {
  type Backend,
  createPostgresDatabase,
  openPgliteBackend,
  openPostgresBackend,
} from './backends.ts';

const TABLES = [
  'users',
  'accounts',
  'memberships',
  'api_keys',
  'social_accounts',
  'posts',
  'post_targets',
  'webhooks',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'idempotency_keys',
];

function describeSchema(name: string, open: () => Promise<Backend>) {
  describe(`${name}: schema`, () => {
    let backend: Backend;
    let db: Kysely<Database>;
    beforeAll(async () => {
      backend = await open();
      db = backend.handle.db;
    });
    afterAll(async () => {
      await backend?.close();
    });

    const columns = async (table: string) =>
      (
        await sql<{ column_name: string; data_type: string }>`
          SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`.execute(
          db,
        )
      ).rows;

    it('has every table, uuid ids and timestamptz everywhere', async () => {
      for (const table of TABLES) {
        const cols = await columns(table);
        expect(cols.length, table).toBeGreaterThan(0);
        for (const col of cols) {
          if (col.column_name === 'id' || col.column_name.endsWith('_id')) {
            if (['external_id', 'platform_post_id', 'first_comment_id'].includes(col.column_name))
              continue;
            expect(col.data_type, `${table}.${col.column_name}`).toBe('uuid');
          }
          if (/(_at)$/.test(col.column_name)) {
            expect(col.data_type, `${table}.${col.column_name}`).toBe('timestamp with time zone');
          }
          expect(col.data_type).not.toBe('timestamp without time zone');
        }
      }
    });

    it('has no column for a raw API key or a plaintext token', async () => {
      expect((await columns('api_keys')).map((col) => col.column_name)).toEqual([
        'id',
        'account_id',
        'created_by',
        'name',
        'key_hash',
        'key_prefix',
        'created_at',
        'last_used_at',
      ]);
      const tokenColumns = (await columns('social_accounts'))
        .map((col) => col.column_name)
        .filter((column) => column.includes('token'));
      expect(tokenColumns).toEqual([
        'access_token_ciphertext',
        'refresh_token_ciphertext',
        'token_expires_at',
      ]);
      expect(
        (await columns('webhook_deliveries')).find((c) => c.column_name === 'payload'),
      ).toEqual({ column_name: 'payload', data_type: 'text' });
    });

    it('has the indexes the queries use', async () => {
      const { rows } = await sql<{ indexname: string }>`
        SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`.execute(db);
      const names = rows.map((row) => row.indexname);
      expect(names).toEqual(
        expect.arrayContaining([
          'posts_created_by_created_at_idx',
          'posts_due_at_idx',
          'post_targets_post_id_idx',
          'post_targets_expired_lease_idx',
          'webhooks_account_id_idx',
          'webhook_deliveries_due_idx',
          'webhook_deliveries_webhook_idx',
          'webhook_delivery_attempts_delivery_idx',
          'api_keys_key_hash_key',
          'memberships_user_id_idx',
          'social_accounts_account_platform_idx',
          'idempotency_keys_expires_at_idx',
        ]),
      );
    });

    describe('CHECK constraints mirror the domain limits', () => {
      let userId = '';
      beforeAll(async () => {
        userId = (await seedUser(backend.handle.repos)).id;
      });

      const rejects = async (statement: ReturnType<typeof sql>, constraint: RegExp) => {
        await expect(statement.execute(db)).rejects.toThrow(constraint);
      };

      it('posts: content at most 5000 characters, known statuses', async () => {
        const post = makePost(userId, userId, { platforms: [] });
        await backend.handle.repos.posts.insert({ ...post, content: '€'.repeat(5000) });
        await rejects(
          sql`INSERT INTO posts (id, account_id, created_by, content, status, created_at, updated_at)
              VALUES (gen_random_uuid(), ${userId}, ${userId}, ${'x'.repeat(5001)}, 'queued', now(), now())`,
          /posts_content_check/,
        );
        await rejects(
          sql`INSERT INTO posts (id, account_id, created_by, status, created_at, updated_at)
              VALUES (gen_random_uuid(), ${userId}, ${userId}, 'deleted', now(), now())`,
          /posts_status_check/,
        );
        await rejects(
          sql`UPDATE posts SET platform_options = '[]'::jsonb WHERE id = ${post.id}`,
          /posts_platform_options_check/,
        );
      });

      it('api keys: name 1-100, key_hash is SHA-256 hex and unique', async () => {
        const insertKey = (keyName: string, hash: string) =>
          sql`INSERT INTO api_keys (id, account_id, created_by, name, key_hash, key_prefix, created_at)
              VALUES (gen_random_uuid(), ${userId}, ${userId}, ${keyName}, ${hash}, 'sp_abcdefgh', now())`;
        const hash = `${'a'.repeat(63)}b`;
        await insertKey('x'.repeat(100), hash).execute(db);
        await rejects(insertKey('', 'c'.repeat(64)), /api_keys_name_check/);
        await rejects(insertKey('x'.repeat(101), 'c'.repeat(64)), /api_keys_name_check/);
        await rejects(insertKey('raw', 'sp_NotAHashAtAll'), /api_keys_key_hash_check/);
        await rejects(insertKey('dup', hash), /api_keys_key_hash_key/);
      });

      it('targets, connections, webhooks and deliveries: statuses and events in their sets', async () => {
        const post = makePost(userId, userId, { platforms: ['tiktok'] });
        await backend.handle.repos.posts.insert(post);
        const targetId = post.targets[0]?.id ?? '';
        await rejects(
          sql`UPDATE post_targets SET status = 'done' WHERE id = ${targetId}`,
          /post_targets_status_check/,
        );
        await rejects(
          sql`UPDATE post_targets SET status = 'publishing', lease_expires_at = NULL WHERE id = ${targetId}`,
          /post_targets_publishing_has_lease/,
        );
        // Any platform name of the right shape is stored (the application knows the list)...
        await sql`UPDATE post_targets SET platform = 'myspace' WHERE id = ${targetId}`.execute(db);
        // ...but not something that cannot be a platform name.
        await rejects(
          sql`UPDATE post_targets SET platform = 'My Space; DROP' WHERE id = ${targetId}`,
          /post_targets_platform_name/,
        );
        const connection = makeSocialAccount(userId);
        await backend.handle.repos.socialAccounts.insert(connection);
        await rejects(
          sql`UPDATE social_accounts SET status = 'paused' WHERE id = ${connection.id}`,
          /social_accounts_status_check/,
        );
        const webhook = makeWebhook(userId, userId);
        await backend.handle.repos.webhooks.insert(webhook);
        // Which events exist is the domain's to say (WEBHOOK_EVENTS); the column checks shape.
        await rejects(
          sql`UPDATE webhooks SET events = ARRAY['Post Deleted'] WHERE id = ${webhook.id}`,
          /webhooks_events_shape/,
        );
        await rejects(
          sql`UPDATE webhooks SET events = ARRAY['post.published', 'post'] WHERE id = ${webhook.id}`,
          /webhooks_events_shape/,
        );
        await rejects(
          sql`UPDATE webhooks SET events = '{}' WHERE id = ${webhook.id}`,
          /webhooks_events_shape/,
        );
        await sql`UPDATE webhooks SET events = ARRAY['post.metrics_updated', 'post.target.published']
                  WHERE id = ${webhook.id}`.execute(backend.handle.db);
        await rejects(
          sql`UPDATE webhooks SET url = 'ftp://example.test' WHERE id = ${webhook.id}`,
          /webhooks_url_check/,
        );
        const delivery = makeDelivery(webhook, post.id);
        await backend.handle.repos.deliveries.insertMany([delivery]);
        await rejects(
          sql`UPDATE webhook_deliveries SET status = 'sent' WHERE id = ${delivery.id}`,
          /webhook_deliveries_status_check/,
        );
        await rejects(
          sql`UPDATE webhook_deliveries SET event = 'post published' WHERE id = ${delivery.id}`,
          /webhook_deliveries_event_shape/,
        );
        // A connection's events have no post; every other event has one.
        await rejects(
          sql`UPDATE webhook_deliveries SET event = 'social_account.expired' WHERE id = ${delivery.id}`,
          /webhook_deliveries_post_event/,
        );
      });

      it('accounts: a team name is 1-100 characters', async () => {
        await rejects(
          sql`INSERT INTO accounts (id, kind, name, created_at)
              VALUES (gen_random_uuid(), 'team', ${'t'.repeat(101)}, now())`,
          /accounts_team_name_length/,
        );
        await rejects(
          sql`INSERT INTO accounts (id, kind, name, created_at) VALUES (gen_random_uuid(), 'org', 'x', now())`,
          /accounts_kind_check/,
        );
      });
    });

    describe('foreign keys', () => {
      it('deleting a webhook deletes its deliveries and their attempts', async () => {
        const { repos } = backend.handle;
        const user = await seedUser(repos);
        const post = makePost(user.id, user.id);
        await repos.posts.insert(post);
        const webhook = makeWebhook(user.id, user.id);
        await repos.webhooks.insert(webhook);
        const delivery = makeDelivery(webhook, post.id);
        await repos.deliveries.insertMany([delivery]);
        await repos.deliveries.recordAttempt(makeAttempt(delivery.id, 1), {
          status: 'pending',
          nextAttemptAt: new Date(),
          deliveredAt: null,
        });
        await repos.webhooks.delete(webhook.id);
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = ${delivery.id}`.execute(
          db,
        );
        expect(rows[0]?.n).toBe(0);
      });

      it('deleting a connection keeps the targets that used it (no foreign key)', async () => {
        const { repos } = backend.handle;
        const user = await seedUser(repos);
        const connection = makeSocialAccount(user.id);
        await repos.socialAccounts.insert(connection);
        const post = makePost(user.id, user.id, { socialAccountIds: [connection.id] });
        await repos.posts.insert(post);
        expect(await repos.socialAccounts.delete(connection.id)).toBe(true);
        expect((await repos.posts.findById(post.id))?.targets[0]?.socialAccountId).toBe(
          connection.id,
        );
      });

      it('deleting an account deletes what it owns', async () => {
        const { repos } = backend.handle;
        const user = await seedUser(repos);
        const post = makePost(user.id, user.id);
        await repos.posts.insert(post);
        const webhook = makeWebhook(user.id, user.id);
        await repos.webhooks.insert(webhook);
        await repos.deliveries.insertMany([makeDelivery(webhook, post.id)]);
        await repos.socialAccounts.insert(makeSocialAccount(user.id));
        await sql`DELETE FROM accounts WHERE id = ${user.id}`.execute(db);
        expect(await repos.posts.findById(post.id)).toBeNull();
        expect(await repos.webhooks.findById(webhook.id)).toBeNull();
        expect(await repos.socialAccounts.listByAccount(user.id)).toEqual([]);
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM post_targets WHERE post_id = ${post.id}`.execute(db);
        expect(rows[0]?.n).toBe(0);
      });

      it('a user who created posts cannot be deleted while the posts exist', async () => {
        const { repos } = backend.handle;
        const owner = await seedUser(repos);
        const member = await seedUser(repos);
        const team = {
          id: crypto.randomUUID(),
          kind: 'team' as const,
          approvalRequired: false,
          name: 'T',
          createdAt: new Date(),
        };
        await repos.accounts.createAccount(team);
        await repos.posts.insert(makePost(team.id, member.id));
        await expect(sql`DELETE FROM users WHERE id = ${member.id}`.execute(db)).rejects.toThrow(
          /posts_created_by_fkey/,
        );
        expect(owner.id).not.toBe(member.id);
      });
    });
  });
}

describeSchema('pglite', () => openPgliteBackend());

const database = await createPostgresDatabase();
if (database.skipReason !== undefined) {
  describe('postgres: schema', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  describeSchema('postgres', () => openPostgresBackend(database));
  afterAll(() => database.drop());
}
