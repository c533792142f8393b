/**
 * The pipeline's SQL floor: the least SQL one post with 3 targets and 1 webhook needs, sent
 * straight to the database (raw statements, no query builder, no queue, no HTTP) with the
 * worker's concurrency, one statement after the other per post as a worker would:
 *   1. claim: the post -> publishing and its targets claimed (one statement);
 *   2. record: the targets' results (one statement for all three);
 *   3. finalize: the post's outcome and its webhook delivery (one statement);
 *   4. load the delivery with its webhook; 5. record the delivery attempt.
 * The ratio pipeline / floor says how close the worker runs to what the database can do.
 */
import type { Database } from '@social-publisher/adapter-postgres';
import { createUuidV7Generator, type PostWithTargets } from '@social-publisher/domain';
import { CompiledQuery, type Kysely } from 'kysely';
import { mapLimit, nowMs } from '../lib/stats.ts';

const CLAIM = `
with started as (
  update posts set status = 'publishing', updated_at = $2
  where id = $1 and status in ('scheduled', 'queued', 'publishing')
  returning id
)
update post_targets set status = 'publishing', attempts = attempts + 1,
  lease_expires_at = $3, updated_at = $2
where post_id in (select id from started) and status = 'pending'
returning id`;

const RECORD = `
update post_targets set status = 'published', platform_post_id = 'sandbox-' || id,
  published_at = $2, error_code = null, error_message = null, retryable = null,
  lease_expires_at = null, updated_at = $2
where post_id = $1 and status = 'publishing'`;

const FINALIZE = `
with moved as (
  update posts set status = 'published', updated_at = $2
  where id = $1 and status = 'publishing'
  returning id, account_id
)
insert into webhook_deliveries (id, webhook_id, account_id, post_id, event, payload, status,
  attempts, next_attempt_at, created_at)
select $3, w.id, moved.account_id, moved.id, 'post.published', $4, 'pending', 0, $2, $2
from moved join webhooks w on w.account_id = moved.account_id
where w.active and 'post.published' = any(w.events)
returning id`;

const LOAD = `
select d.id, d.payload, d.attempts, w.url, w.secret
from webhook_deliveries d join webhooks w on w.id = d.webhook_id
where d.id = $1`;

const RECORD_ATTEMPT = `
with attempt as (
  insert into webhook_delivery_attempts (id, delivery_id, attempt_no, status_code, error,
    duration_ms, created_at)
  values ($2, $1, 1, 200, null, 1, $3)
)
update webhook_deliveries set status = 'delivered', attempts = attempts + 1,
  last_status_code = 200, delivered_at = $3, next_attempt_at = null
where id = $1`;

const LEASE_MS = 60_000;

/** Runs the floor's statements for every post; returns the milliseconds it took. */
export async function pipelineSqlFloor(
  db: Kysely<Database>,
  posts: PostWithTargets[],
  concurrency: number,
): Promise<number> {
  const ids = createUuidV7Generator();
  const run = (text: string, parameters: unknown[]) =>
    db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, parameters));
  const started = nowMs();
  await mapLimit(posts, concurrency, async (post) => {
    const now = new Date();
    const claimed = await run(CLAIM, [post.id, now, new Date(now.getTime() + LEASE_MS)]);
    if (claimed.rows.length !== post.targets.length) throw new Error(`claim of ${post.id}`);
    await run(RECORD, [post.id, new Date()]);
    const payload = JSON.stringify({
      event: 'post.published',
      post_id: post.id,
      account_id: post.accountId,
      timestamp: new Date().toISOString(),
      data: { published: post.targets.length, failed: 0, total: post.targets.length },
    });
    const finalized = await run(FINALIZE, [post.id, new Date(), ids.newId(), payload]);
    const [delivery] = finalized.rows;
    if (!delivery) throw new Error(`no delivery for ${post.id}`);
    await run(LOAD, [delivery.id]);
    await run(RECORD_ATTEMPT, [delivery.id, ids.newId(), new Date()]);
  });
  return nowMs() - started;
}
