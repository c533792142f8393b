// listByCreator (GET /posts: all of a user's posts, no pagination) on 10,000 posts x 3 targets,
// and the number of queries behind the listings: at most two, whatever the number of rows.
import type { Repositories } from '@social-publisher/domain';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepositories, type DatabaseHandle } from '../src/index.ts';
import {
  type Backend,
  createPostgresDatabase,
  openPgliteBackend,
  openPostgresBackend,
} from './backends.ts';

const POSTS = 10_000;
const TARGETS_PER_POST = 3;

/** Counts the queries run through a Kysely instance. */
class QueryCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count += 1;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

function counted(handle: DatabaseHandle): { repos: Repositories; counter: QueryCounter } {
  const counter = new QueryCounter();
  return { repos: createRepositories(handle.db.withPlugin(counter)), counter };
}

/** One user with POSTS posts of TARGETS_PER_POST targets each, generated in SQL. */
async function seedManyPosts(handle: DatabaseHandle): Promise<string> {
  const userId = '01900000-0000-7000-8000-000000000001';
  await sql`INSERT INTO users (id, email, created_at) VALUES (${userId}, 'bulk@example.test', now())`.execute(
    handle.db,
  );
  await sql`INSERT INTO accounts (id, kind, name, created_at) VALUES (${userId}, 'personal', 'bulk', now())`.execute(
    handle.db,
  );
  await sql`
    INSERT INTO posts (id, account_id, created_by, content, media_urls, platform_options,
                       scheduled_at, status, created_at, updated_at)
    SELECT gen_random_uuid(), ${userId}, ${userId}, 'post number ' || n,
           ARRAY['https://cdn.example.test/' || n || '.mp4'],
           '{"tiktok":{"tiktokPrivacy":"SELF_ONLY"}}'::jsonb,
           NULL, 'published',
           timestamptz '2030-01-01' + n * interval '1 second',
           timestamptz '2030-01-01' + n * interval '1 second'
    FROM generate_series(1, ${POSTS}) AS n`.execute(handle.db);
  await sql`
    INSERT INTO post_targets (id, post_id, position, platform, social_account_id, status, attempts,
                              platform_post_id, platform_url, published_at, updated_at)
    SELECT gen_random_uuid(), p.id, t.position,
           (ARRAY['tiktok', 'instagram', 'youtube'])[t.position + 1], gen_random_uuid(),
           'published', 1, 'platform-' || t.position, NULL, p.created_at, p.created_at
    FROM posts p CROSS JOIN generate_series(0, ${TARGETS_PER_POST - 1}) AS t(position)
    WHERE p.created_by = ${userId}`.execute(handle.db);
  await sql`ANALYZE`.execute(handle.db);
  return userId;
}

function describeListing(name: string, open: () => Promise<Backend | undefined>, budgetMs: number) {
  describe(name, () => {
    let backend: Backend | undefined;
    let userId = '';
    beforeAll(async () => {
      backend = await open();
      if (backend) userId = await seedManyPosts(backend.handle);
    }, 180_000);
    afterAll(async () => {
      await backend?.close();
    });

    it(`lists ${POSTS} posts x ${TARGETS_PER_POST} targets in two queries within ${budgetMs} ms`, async () => {
      if (!backend) throw new Error('no backend');
      const { repos, counter } = counted(backend.handle);
      await repos.posts.listByCreator(userId, [userId]); // warm-up (plan caches, JIT)
      counter.count = 0;
      const started = performance.now();
      const posts = await repos.posts.listByCreator(userId, [userId]);
      const elapsed = performance.now() - started;
      console.info(
        `[${name}] listByCreator ${POSTS} posts x ${TARGETS_PER_POST}: ${elapsed.toFixed(0)} ms`,
      );

      expect(counter.count).toBe(2);
      expect(posts).toHaveLength(POSTS);
      expect(posts.every((post) => post.targets.length === TARGETS_PER_POST)).toBe(true);
      expect(posts[0]?.content).toBe(`post number ${POSTS}`);
      expect(posts[0]?.targets.map((target) => target.platform)).toEqual([
        'tiktok',
        'instagram',
        'youtube',
      ]);
      expect(posts.at(-1)?.content).toBe('post number 1');
      expect(posts[0]?.createdAt).toBeInstanceOf(Date);
      expect(elapsed).toBeLessThan(budgetMs);
    }, 120_000);

    it('lists in one query when there are no posts, and findById takes one', async () => {
      if (!backend) throw new Error('no backend');
      const { repos, counter } = counted(backend.handle);
      expect(
        await repos.posts.listByCreator('01900000-0000-7000-8000-0000000000ff', [userId]),
      ).toEqual([]);
      expect(counter.count).toBe(1);
      const [first] = await repos.posts.listByCreator(userId, [userId]);
      counter.count = 0;
      expect(await repos.posts.findById(first?.id ?? '')).toEqual(first);
      expect(counter.count).toBe(1);
    }, 60_000);

    it('lists deliveries with their attempts in two queries', async () => {
      if (!backend) throw new Error('no backend');
      const [post] = await backend.handle.repos.posts.listByCreator(userId, [userId]);
      const webhookId = '01900000-0000-7000-8000-0000000000aa';
      await sql`
        INSERT INTO webhooks (id, account_id, created_by, url, events, secret, created_at)
        VALUES (${webhookId}, ${userId}, ${userId}, 'https://hooks.example.test',
                ARRAY['post.published'], 'whsec_x', now())`.execute(backend.handle.db);
      await sql`
        INSERT INTO webhook_deliveries (id, webhook_id, account_id, post_id, event, payload, status,
                                        attempts, created_at)
        SELECT gen_random_uuid(), ${webhookId}, ${userId}, ${post?.id}, 'post.published', '{}',
               'failed', 3, timestamptz '2030-01-01' + n * interval '1 second'
        FROM generate_series(1, 200) AS n`.execute(backend.handle.db);
      await sql`
        INSERT INTO webhook_delivery_attempts (id, delivery_id, attempt_no, status_code, duration_ms,
                                               created_at)
        SELECT gen_random_uuid(), d.id, a, 500, 10, d.created_at + a * interval '1 second'
        FROM webhook_deliveries d CROSS JOIN generate_series(1, 3) AS a
        WHERE d.webhook_id = ${webhookId}`.execute(backend.handle.db);

      const { repos, counter } = counted(backend.handle);
      const deliveries = await repos.deliveries.listByWebhook(webhookId, 100);
      expect(counter.count).toBe(2);
      expect(deliveries).toHaveLength(100);
      for (const delivery of deliveries) {
        expect(delivery.attemptLog.map((attempt) => attempt.attemptNo)).toEqual([1, 2, 3]);
      }
    }, 60_000);
  });
}

describeListing('pglite', () => openPgliteBackend(), 5_000);

const database = await createPostgresDatabase();
if (database.skipReason !== undefined) {
  describe('postgres', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  describeListing('postgres', () => openPostgresBackend(database), 2_000);
  afterAll(() => database.drop());
}
