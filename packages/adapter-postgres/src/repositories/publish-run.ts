/**
 * The two statements every publish run makes, written for many posts (targets) at once so that
 * concurrent jobs share them (see batch.ts): the start (post -> publishing, targets claimed)
 * and the completion of a target.
 */
import {
  type PostStatus,
  type PostTarget,
  type PostWithTargets,
  type PublishStart,
  type PublishStartRequest,
  STARTABLE_POST_STATUSES,
  type TargetClaim,
  type TargetCompletion,
} from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import { preparedMark } from '../prepared.ts';
import type { Database } from '../schema.ts';
import { columnList, postColumns, postFromJoinedRows, targetColumns } from './columns.ts';

/** The target columns a claim changes: read from the claim's RETURNING, the rest from the row. */
const CLAIMED = new Set(['status', 'attempts', 'lease_expires_at', 'updated_at']);
const startedTargetColumns = targetColumns
  .map((column) => {
    const [source = '', field = ''] = column.split(' as ');
    const name = source.slice(source.indexOf('.') + 1);
    const value = CLAIMED.has(name) ? `coalesce(claimed.${name}, t.${name})` : `t.${name}`;
    return `${value} as "t_${field}"`;
  })
  .join(', ');

/**
 * The post's columns as the start saw them: a started post's from `startable`, whose FOR
 * UPDATE returns the row as it is once the lock is granted; the outer SELECT's `p` is the
 * statement's snapshot, older when an edit committed while the start waited for its lock.
 */
const startedPostList = postColumns
  .map((column) => {
    const [source = '', field = ''] = column.split(' as ');
    const name = source.slice(source.indexOf('.') + 1);
    return `case when s.id is null then p.${name} else s.${name} end as "${field}"`;
  })
  .join(', ');

/**
 * One statement for any number of posts. `startable` locks the due, startable posts in id
 * order (two such statements over overlapping posts wait for each other instead of
 * deadlocking); `started` moves them to `publishing`; `claimed` claims the targets of the started posts (FOR UPDATE SKIP LOCKED: a
 * row another claimer is updating is skipped, one it already claimed no longer matches when
 * re-checked). The outer SELECT sees the rows as they were before the statement, so the
 * post's previous status comes from there, the claimed columns from the RETURNING lists and a
 * started post's columns from `startable`.
 */
function startStatement(inputs: StartInput[]) {
  const iso = (pick: (request: PublishStartRequest) => Date) =>
    inputs.map(({ request }) => pick(request).toISOString());
  const ids = inputs.map((input) => input.postId);
  const startable = [...STARTABLE_POST_STATUSES];
  return sql<Row>`${preparedMark('publish_start')}
with request as (
  select * from unnest(${ids}::uuid[], ${iso((r) => r.now)}::timestamptz[],
                       ${iso((r) => r.startBefore)}::timestamptz[],
                       ${iso((r) => r.leaseExpiresAt)}::timestamptz[])
    as r(post_id, now, start_before, lease)
),
startable as (
  select posts.* from posts join request on request.post_id = posts.id
  where posts.status = any(${startable}::text[])
    and (posts.scheduled_at is null or posts.scheduled_at <= request.start_before)
  order by posts.id
  for update of posts
),
started as (
  update posts set status = 'publishing', updated_at = request.now
  from startable join request on request.post_id = startable.id
  where posts.id = startable.id
  returning posts.id, posts.updated_at
),
claimed as (
  update post_targets
  set status = 'publishing', attempts = post_targets.attempts + 1,
      lease_expires_at = claimable.lease, updated_at = claimable.now
  from (
    select c.id, c.status as previous, request.lease, request.now
    from post_targets c
    join started on started.id = c.post_id
    join request on request.post_id = c.post_id
    where c.status = 'pending' or (c.status = 'publishing' and c.lease_expires_at <= request.now)
    for update of c skip locked
  ) as claimable
  where post_targets.id = claimable.id
  returning post_targets.id, post_targets.status, post_targets.attempts,
            post_targets.lease_expires_at, post_targets.updated_at, claimable.previous
)
select p.status as "previousStatus", started.id is not null as "started",
       claimed.id is not null as "claimed", claimed.previous as "claimedFrom",
       ${sql.raw(startedPostList)},
       case when started.id is null then p.status else 'publishing' end as "status",
       coalesce(started.updated_at, p.updated_at) as "updatedAt",
       ${sql.raw(startedTargetColumns)}
from request
join posts p on p.id = request.post_id
left join started on started.id = p.id
left join startable s on s.id = started.id
left join post_targets t on t.post_id = p.id
left join claimed on claimed.id = t.id
order by p.id, t.position`;
}

export interface StartInput {
  postId: string;
  request: PublishStartRequest;
}

type Row = Record<string, unknown>;

/** One post's rows: the post and its targets, and which of them this statement claimed. */
function startFromRows(rows: Row[]): PublishStart {
  const [first = {}] = rows;
  const post = postFromJoinedRows(rows) as PostWithTargets;
  const claims: TargetClaim[] = [];
  for (const [index, row] of rows.filter((r) => r.t_id !== null).entries()) {
    const target = post.targets[index] as PostTarget;
    if (row.claimed === true) {
      claims.push({ target: { ...target }, takenOver: row.claimedFrom === 'publishing' });
    }
  }
  return {
    post,
    started: first.started === true,
    previousStatus: first.previousStatus as PostStatus,
    claims,
  };
}

export async function startPublishMany(
  db: Kysely<Database>,
  inputs: StartInput[],
): Promise<Array<PublishStart | null>> {
  const result = await startStatement(inputs).execute(db);
  const byPost = new Map<string, Row[]>();
  for (const row of result.rows) {
    const id = row.id as string;
    const list = byPost.get(id);
    if (list) list.push(row);
    else byPost.set(id, [row]);
  }
  return inputs.map((input) => {
    const rows = byPost.get(input.postId);
    return rows ? startFromRows(rows) : null;
  });
}

/**
 * The tracks (`pending`, step 0) of the targets `completed` published with a first read due in
 * `dueColumn`; a target that already has one keeps it.
 */
const startTracks = (
  table: 'metric_tracks' | 'comment_tracks',
  dueColumn: 'metrics_due_at' | 'comments_due_at',
) => sql`
  insert into ${sql.raw(table)} (target_id, post_id, account_id, social_account_id, platform,
                             platform_post_id, published_at, sandbox, state, step, due_at)
  select completed.id, completed.post_id, posts.account_id, completed.social_account_id,
         completed.platform, completed.platform_post_id, completed.published_at,
         completed.sandbox, 'pending', 0, completed.${sql.raw(dueColumn)}
  from completed join posts on posts.id = completed.post_id
  where completed.status = 'published' and completed.${sql.raw(dueColumn)} is not null
  on conflict do nothing
`;

/**
 * Completions of any number of `publishing` targets: the published ones take their platform
 * ids and clear the error, the failed ones keep the ids they had and take the error. A
 * published one with a `metrics_due_at` starts its metrics track (`pending`, its first read
 * due then) in the same statement, and with a `comments_due_at` its comment track likewise:
 * a target is never published without the tracks it was promised. Returns the updated rows; a target that was not `publishing` is left out.
 */
const completedList = columnList(targetColumns, 'completed');

const completeStatement = (rows: unknown[]) => sql<PostTarget>`${preparedMark('target_complete')}
with completion as (
  select * from json_to_recordset(${JSON.stringify(rows)}::json) as c(
    id uuid, status text, platform_post_id text, platform_url text,
    thread_post_ids jsonb, first_comment_id text,
    error_code text, error_message text, retryable boolean, at timestamptz,
    metrics_due_at timestamptz, comments_due_at timestamptz)
),
completed as (
  update post_targets t set
    status = c.status,
    -- A failed target brings ids only for what went out before the failure (kept, shown).
    platform_post_id = coalesce(c.platform_post_id, t.platform_post_id),
    platform_url = coalesce(c.platform_url, t.platform_url),
    thread_post_ids = coalesce(c.thread_post_ids, t.thread_post_ids),
    first_comment_id = coalesce(c.first_comment_id, t.first_comment_id),
    published_at = case when c.status = 'published' then c.at else t.published_at end,
    error_code = c.error_code,
    error_message = c.error_message,
    retryable = c.retryable,
    lease_expires_at = null,
    updated_at = c.at
  from completion c
  where t.id = c.id and t.status = 'publishing' and t.id in (
    -- Locked in id order: two completions of overlapping targets wait instead of deadlocking.
    select l.id from post_targets l join completion on completion.id = l.id
    where l.status = 'publishing' order by l.id for update of l)
  returning t.*, c.metrics_due_at, c.comments_due_at
),
tracked as (${startTracks('metric_tracks', 'metrics_due_at')}),
comments_tracked as (${startTracks('comment_tracks', 'comments_due_at')})
select ${sql.raw(completedList)} from completed`;

export interface CompleteInput {
  targetId: string;
  completion: TargetCompletion;
}

export async function completeTargetsMany(
  db: Kysely<Database>,
  inputs: CompleteInput[],
): Promise<Array<PostTarget | null>> {
  const rows = inputs.map(({ targetId, completion: c }) =>
    c.status === 'published'
      ? {
          id: targetId,
          status: c.status,
          platform_post_id: c.platformPostId,
          platform_url: c.platformUrl,
          thread_post_ids: c.threadPostIds ?? null,
          first_comment_id: c.firstCommentId ?? null,
          error_code: null,
          error_message: null,
          retryable: null,
          at: c.at.toISOString(),
          metrics_due_at: c.metricsDueAt?.toISOString() ?? null,
          comments_due_at: c.commentsDueAt?.toISOString() ?? null,
        }
      : {
          id: targetId,
          status: c.status,
          platform_post_id: c.publishedSoFar?.platformPostId ?? null,
          platform_url: c.publishedSoFar?.platformUrl ?? null,
          thread_post_ids: c.publishedSoFar?.threadPostIds ?? null,
          first_comment_id: c.publishedSoFar?.firstCommentId ?? null,
          error_code: c.errorCode,
          error_message: c.errorMessage,
          retryable: c.retryable,
          at: c.at.toISOString(),
          metrics_due_at: null,
          comments_due_at: null,
        },
  );
  const result = await completeStatement(rows).execute(db);
  const byId = new Map(result.rows.map((row) => [row.id, row]));
  return inputs.map((input) => byId.get(input.targetId) ?? null);
}
