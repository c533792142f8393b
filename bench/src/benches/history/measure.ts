/**
 * The figures of one history size, each a p99 (and p50) over repeated calls: the API's create,
 * list (first page and a page in the middle of the user's history) and read by id over HTTP,
 * then the worker's passes called directly on the same database: the due scan, a whole
 * reconcile pass, the idempotency sweep and finalizing a published post.
 */
import { type CoreDeps, encodeCursor, finalizePost, reconcile } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { SeededUser } from '../../lib/infra.ts';
import { buildPost } from '../../lib/posts.ts';
import { percentile } from '../../lib/stats.ts';

export interface Sample {
  name: string;
  p50: number;
  /** The median of the blocks' p99s (see `timed`). */
  p99: number;
  /** The p99 over every call, printed beside it. */
  p99AllCalls: number;
}

/** Calls are timed in this many blocks, one after the other. */
export const BLOCKS = 5;

/** Calls made before the timed ones. */
const warmUps = (runs: number): number => Math.ceil(runs / 10);

export interface Counts {
  http: number;
  passes: number;
}

// biome-ignore lint/suspicious/noExplicitAny: raw SQL against the bench's own tables
type AnyDb = Kysely<any>;

/**
 * p50 over every call; p99 as the median of the p99s of BLOCKS consecutive blocks. The sizes
 * are measured a quarter of an hour apart on a shared machine, and a burst of another
 * process's work (a second or two) lands in one block: the median leaves it out where a p99
 * over every call would compare one size's burst with another's quiet. The p99 over every
 * call is kept and printed beside it.
 */
async function timed(runs: number, once: () => Promise<void>, name: string): Promise<Sample> {
  // Warm-up, not counted: plans cached, pages in memory, the code compiled.
  for (let run = 0; run < warmUps(runs); run++) await once();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  const size = Math.ceil(times.length / BLOCKS);
  const blockP99s = Array.from({ length: BLOCKS }, (_, index) =>
    percentile(times.slice(index * size, (index + 1) * size), 99),
  ).filter((value) => Number.isFinite(value));
  return {
    name,
    p50: percentile(times, 50),
    p99: percentile(blockP99s, 50),
    p99AllCalls: percentile(times, 99),
  };
}

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

export async function measureApi(
  origin: string,
  db: AnyDb,
  seeded: SeededUser,
  runs: number,
): Promise<Sample[]> {
  const key = seeded.rawKey;
  const body = JSON.stringify({
    content: 'History bench post',
    social_account_ids: [seeded.connections.twitter, seeded.connections.linkedin],
  });
  const cursor = await middleCursor(db, seeded.userId);
  const ids = await somePostIds(db, seeded.userId, runs + warmUps(runs));
  let next = 0;
  const created = await timed(
    runs,
    () => call(origin, key, '/posts', { method: 'POST', body }),
    'create',
  );
  await finishCreated(db);
  return [
    created,
    await timed(runs, () => call(origin, key, '/posts?limit=50'), 'GET /posts first page'),
    await timed(
      runs,
      () => call(origin, key, `/posts?limit=50&before=${cursor}`),
      'GET /posts middle page',
    ),
    await timed(
      runs,
      () => call(origin, key, `/posts/${ids[next++ % ids.length]}`),
      'GET /posts/:id',
    ),
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

export async function measurePasses(
  deps: CoreDeps,
  db: AnyDb,
  seeded: SeededUser,
  runs: number,
): Promise<Sample[]> {
  const lookAhead = () => new Date(deps.clock.now().getTime() + 60_000);
  const samples = [
    await timed(
      runs,
      async () => void (await deps.repos.posts.findDuePosts(lookAhead(), 500)),
      'due scan',
    ),
    await timed(
      Math.max(3, Math.floor(runs / 10)),
      async () => void (await reconcile(deps)),
      'reconcile pass',
    ),
  ];
  samples.push(
    await timed(
      Math.max(3, Math.floor(runs / 10)),
      async () => {
        // A day of creates expiring: the sweep deletes what expired since the last one.
        await sql`
          insert into idempotency_keys (scope, key, request_hash, status_code, response_body,
                                        created_at, expires_at)
          select 'sweep', gen_random_uuid()::text, 'h', 201, '{}', now() - interval '2 days',
                 now() - interval '1 day'
          from generate_series(1, 1000)`.execute(db);
        await deps.repos.idempotency.deleteExpired(deps.clock.now());
      },
      'idempotency sweep (1,000 expired)',
    ),
  );
  const posts = await Promise.all(
    Array.from({ length: runs + warmUps(runs) }, () => publishedPost(deps, seeded)),
  );
  let next = 0;
  const nextPost = () => {
    const post = posts[next++];
    if (!post) throw new Error('no published post left to finalize');
    return post;
  };
  samples.push(await timed(runs, () => finalizePost(deps, nextPost()), 'finalize'));
  return samples;
}
