/**
 * The figures of one history size, each a p99 (and p50) over repeated calls: the API's create,
 * list (first page and a page in the middle of the user's history) and read by id over HTTP,
 * then the worker's passes called directly on the same database: the due scan, a whole
 * reconcile pass, the idempotency sweep and finalizing a published post. Each figure is a
 * probe: what one call does, prepared for a given database, so that the same figure can be
 * timed on two databases side by side (side-by-side.ts).
 */
import { type CoreDeps, encodeCursor, finalizePost, reconcile } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { SeededUser } from '../../lib/infra.ts';
import { buildPost } from '../../lib/posts.ts';

/**
 * One figure on one database: `prepare` runs just before its first call, `once` is a call to
 * time, `after` tidies up when all ran.
 */
export interface Probe {
  name: string;
  /** Calls timed (and a tenth as many before them, not counted). */
  runs: number;
  prepare?(): Promise<void>;
  once(): Promise<void>;
  after?(): Promise<void>;
}

/** Calls made before the timed ones. */
export const warmUps = (runs: number): number => Math.ceil(runs / 10);

// biome-ignore lint/suspicious/noExplicitAny: raw SQL against the bench's own tables
type AnyDb = Kysely<any>;

async function call(origin: string, key: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${origin}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  await response.arrayBuffer();
  if (response.status >= 300)
    throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status}`);
}

/** The cursor of the measured user's post in the middle of their history. */
async function middleCursor(db: AnyDb, userId: string): Promise<string> {
  const { rows } = await sql<{ id: string; created_at: Date; total: string }>`
    select id, created_at, (select count(*) from posts where created_by = ${userId}) as total
    from posts where created_by = ${userId}
    order by created_at desc, id desc
    offset (select count(*) / 2 from posts where created_by = ${userId}) limit 1`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('the measured user has no posts');
  return encodeCursor({ createdAt: row.created_at, id: row.id });
}

async function somePostIds(db: AnyDb, userId: string, count: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select id from posts where created_by = ${userId} order by id limit ${count}`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * The posts the create figure made wait for a worker that never comes: finished here, so the
 * next size's due scan and reconcile pass find what the seeded history holds, not them.
 */
async function finishCreated(db: AnyDb): Promise<void> {
  await sql`
    with done as (
      update posts set status = 'cancelled', updated_at = now()
      where content = 'History bench post' and status = 'queued' returning id)
    update post_targets set status = 'cancelled', updated_at = now()
    where post_id in (select id from done)`.execute(db);
}

export async function apiProbes(
  origin: string,
  db: AnyDb,
  seeded: SeededUser,
  runs: number,
): Promise<Probe[]> {
  const key = seeded.rawKey;
  const body = JSON.stringify({
    content: 'History bench post',
    social_account_ids: [seeded.connections.twitter, seeded.connections.linkedin],
  });
  const cursor = await middleCursor(db, seeded.userId);
  const ids = await somePostIds(db, seeded.userId, runs + warmUps(runs));
  let next = 0;
  return [
    {
      name: 'create',
      runs,
      once: () => call(origin, key, '/posts', { method: 'POST', body }),
      after: () => finishCreated(db),
    },
    { name: 'GET /posts first page', runs, once: () => call(origin, key, '/posts?limit=50') },
    {
      name: 'GET /posts middle page',
      runs,
      once: () => call(origin, key, `/posts?limit=50&before=${cursor}`),
    },
    {
      name: 'GET /posts/:id',
      runs,
      once: () => call(origin, key, `/posts/${ids[next++ % ids.length]}`),
    },
  ];
}

/** A published post of the measured user, still `publishing`, ready to be finalized. */
async function publishedPost(deps: CoreDeps, seeded: SeededUser) {
  const post = buildPost(deps, seeded, ['twitter', 'linkedin']);
  const at = deps.clock.now();
  post.status = 'publishing';
  for (const target of post.targets) {
    target.status = 'published';
    target.attempts = 1;
    target.platformPostId = `sandbox-${target.id}`;
    target.publishedAt = at;
  }
  await deps.repos.posts.insert(post);
  return post;
}

/** The worker's passes; finalize's posts are inserted after the others ran, as they would be. */
export async function passProbes(
  deps: CoreDeps,
  db: AnyDb,
  seeded: SeededUser,
  runs: number,
): Promise<Probe[]> {
  const lookAhead = () => new Date(deps.clock.now().getTime() + 60_000);
  // The sweep (1,000 rows inserted and deleted a call) is timed a sixth as often as the rest.
  const sweepRuns = Math.max(3, Math.floor(runs / 6));
  let posts: Awaited<ReturnType<typeof publishedPost>>[] = [];
  let next = 0;
  const nextPost = () => {
    const post = posts[next++];
    if (!post) throw new Error('no published post left to finalize');
    return post;
  };
  return [
    {
      name: 'due scan',
      runs,
      once: async () => void (await deps.repos.posts.findDuePosts(lookAhead(), 500)),
    },
    { name: 'reconcile pass', runs, once: async () => void (await reconcile(deps)) },
    {
      name: 'idempotency sweep (1,000 expired)',
      runs: sweepRuns,
      once: async () => {
        // A day of creates expiring: the sweep deletes what expired since the last one.
        await sql`
          insert into idempotency_keys (scope, key, request_hash, status_code, response_body,
                                        created_at, expires_at)
          select 'sweep', gen_random_uuid()::text, 'h', 201, '{}', now() - interval '2 days',
                 now() - interval '1 day'
          from generate_series(1, 1000)`.execute(db);
        await deps.repos.idempotency.deleteExpired(deps.clock.now());
      },
    },
    {
      name: 'finalize',
      runs,
      prepare: async () => {
        // Inserted now: the reconcile pass must not find them `publishing` (it would finish them).
        posts = await Promise.all(
          Array.from({ length: runs + warmUps(runs) }, () => publishedPost(deps, seeded)),
        );
      },
      once: () => finalizePost(deps, nextPost()),
    },
  ];
}
