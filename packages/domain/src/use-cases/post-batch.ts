import type { CoreDeps } from '../deps.ts';
import type { DomainError } from '../errors.ts';
import type { AccountContext, PostWithTargets } from '../model.ts';
import type { JobMeta } from '../ports/index.ts';
import type { CreatePostInput, PostMode } from '../rules/post-rules.ts';
import { preparePost, storePost } from './posts.ts';
import { type PostValidation, validatePost } from './validate-post.ts';

/** Posts in one POST /posts/bulk request. */
export const MAX_BULK_POSTS = 100;
/** Rows in one CSV import. */
export const MAX_IMPORT_ROWS = 1_000;

/** One post of a batch: scheduled when it has a scheduled_at, else published now. */
export type BatchItem = CreatePostInput;

export type BatchOutcome = { ok: true; post: PostWithTargets } | { ok: false; error: DomainError };

const VALIDATIONS_AT_ONCE = 8;

export const modeOf = (item: BatchItem): PostMode =>
  item.scheduled_at === undefined || item.scheduled_at === null || item.scheduled_at === ''
    ? 'now'
    : 'scheduled';

/**
 * Creates each post on its own (each is stored atomically with its targets): a bad item is
 * reported and the others are created; nothing is ever half-created.
 */
export async function createPostBatch(
  deps: CoreDeps,
  ctx: AccountContext,
  items: readonly BatchItem[],
  meta: JobMeta = {},
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const item of items) {
    const prepared = await preparePost(deps, ctx, withoutEmptySchedule(item), modeOf(item));
    outcomes.push(
      prepared.ok
        ? { ok: true, post: await storePost(deps, prepared.value, meta) }
        : { ok: false, error: prepared.error },
    );
  }
  return outcomes;
}

/** The dry run of a batch: each item validated as POST /posts/validate would. */
export async function validatePostBatch(
  deps: CoreDeps,
  ctx: AccountContext,
  items: readonly BatchItem[],
  signal?: AbortSignal,
): Promise<PostValidation[]> {
  const results: PostValidation[] = [];
  for (let start = 0; start < items.length; start += VALIDATIONS_AT_ONCE) {
    const batch = items.slice(start, start + VALIDATIONS_AT_ONCE);
    results.push(
      ...(await Promise.all(
        batch.map((item) =>
          validatePost(deps, ctx, withoutEmptySchedule(item), modeOf(item), signal),
        ),
      )),
    );
  }
  return results;
}

/** An empty scheduled_at cell means "now", not "a scheduled_at that is not a date". */
function withoutEmptySchedule(item: BatchItem): BatchItem {
  if (modeOf(item) === 'scheduled' || !('scheduled_at' in item)) return item;
  const { scheduled_at: _, ...rest } = item;
  return rest;
}
