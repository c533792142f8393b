import type { CoreDeps } from '../deps.ts';
import { type DomainError, type Problem, validationFailed } from '../errors.ts';
import type { AccountContext, PostWithTargets } from '../model.ts';
import type { JobMeta } from '../ports/index.ts';
import type { CreatePostInput, PostMode } from '../rules/post-rules.ts';
import { isRecord, typeName } from '../rules/shape.ts';
import { createProbeSession } from './media-probes.ts';
import { preparePost, storePost } from './posts.ts';
import { type PostValidation, type ValidateOptions, validatePost } from './validate-post.ts';

/** Posts in one POST /posts/bulk request. */
export const MAX_BULK_POSTS = 100;
/** Rows in one CSV import. */
export const MAX_IMPORT_ROWS = 1_000;

/** One post of a batch: scheduled when it has a scheduled_at, else published now. */
export type BatchItem = CreatePostInput;

/**
 * One post of a batch as its reader found it: the fields as sent (anything, for a bulk item
 * that is not even an object), and the problems the reader already found (the HTTP schema of
 * an item, a CSV cell that is not JSON). The rules add theirs: every problem is listed.
 */
export interface BatchEntry {
  input: unknown;
  problems?: readonly Problem[];
}

export type BatchOutcome =
  | { ok: true; post: PostWithTargets }
  | { ok: false; error: DomainError }
  /** Not the item's fault (a database error...): reported as that item's, the others go on. */
  | { ok: false; thrown: unknown };

const VALIDATIONS_AT_ONCE = 8;

export const modeOf = (item: BatchItem): PostMode =>
  item.scheduled_at === undefined || item.scheduled_at === null || item.scheduled_at === ''
    ? 'now'
    : 'scheduled';

/**
 * Creates each post on its own (each is stored atomically with its targets): a bad item is
 * reported and the others are created; nothing is ever half-created. An item that fails
 * unexpectedly is reported too, so the results of the others reach the caller (and its
 * idempotency record) whatever happens to one.
 */
export async function createPostBatch(
  deps: CoreDeps,
  ctx: AccountContext,
  entries: readonly BatchEntry[],
  meta: JobMeta = {},
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const [index, entry] of entries.entries()) {
    try {
      outcomes.push(await createEntry(deps, ctx, entry, meta));
    } catch (error) {
      deps.logger.error(
        { index, err: error instanceof Error ? (error.stack ?? error.message) : String(error) },
        'a post of a batch failed unexpectedly; the others go on',
      );
      outcomes.push({ ok: false, thrown: error });
    }
  }
  return outcomes;
}

async function createEntry(
  deps: CoreDeps,
  ctx: AccountContext,
  entry: BatchEntry,
  meta: JobMeta,
): Promise<BatchOutcome> {
  const earlier = entry.problems ?? [];
  if (!isRecord(entry.input)) return refused(earlier.length > 0 ? earlier : [notAPost(entry)]);
  const item = withoutEmptySchedule(entry.input);
  const prepared = await preparePost(deps, ctx, item, modeOf(item));
  if (earlier.length > 0) {
    return refused(withEarlierProblems(earlier, prepared.ok ? [] : problemsOf(prepared.error)));
  }
  if (!prepared.ok) return { ok: false, error: prepared.error };
  return { ok: true, post: await storePost(deps, prepared.value, meta) };
}

/**
 * The dry run of a batch: each item validated as POST /posts/validate would, its media asked
 * within one budget for the whole batch. Stops (throwing the signal's reason) once the client
 * has gone: nobody would read the answer.
 */
export async function validatePostBatch(
  deps: CoreDeps,
  ctx: AccountContext,
  entries: readonly BatchEntry[],
  options: { signal?: AbortSignal } = {},
): Promise<PostValidation[]> {
  const { signal } = options;
  const probes = deps.mediaProbe ? createProbeSession(deps.mediaProbe, { signal }) : undefined;
  const results: PostValidation[] = [];
  for (let start = 0; start < entries.length; start += VALIDATIONS_AT_ONCE) {
    signal?.throwIfAborted();
    const batch = entries.slice(start, start + VALIDATIONS_AT_ONCE);
    results.push(
      ...(await Promise.all(
        batch.map((entry) => validateEntry(deps, ctx, entry, { signal, probes })),
      )),
    );
  }
  signal?.throwIfAborted();
  return results;
}

async function validateEntry(
  deps: CoreDeps,
  ctx: AccountContext,
  entry: BatchEntry,
  options: ValidateOptions,
): Promise<PostValidation> {
  const earlier = entry.problems ?? [];
  if (!isRecord(entry.input)) {
    return { valid: false, problems: earlier.length > 0 ? [...earlier] : [notAPost(entry)] };
  }
  const item = withoutEmptySchedule(entry.input);
  const validation = await validatePost(deps, ctx, item, modeOf(item), options);
  const problems = withEarlierProblems(earlier, validation.problems);
  return { ...validation, valid: problems.length === 0, problems };
}

/**
 * The reader's problems, then the rules' on fields the reader did not name: the same fault
 * found twice (a wrong type, a length) is listed once, in the reader's words.
 */
function withEarlierProblems(earlier: readonly Problem[], later: readonly Problem[]): Problem[] {
  const named = new Set(earlier.map((problem) => problem.field));
  return [...earlier, ...later.filter((problem) => !named.has(problem.field))];
}

const problemsOf = (error: DomainError): Problem[] =>
  error.code === 'validation_failed' ? error.details : [{ field: '', message: error.message }];

const refused = (problems: readonly Problem[]): BatchOutcome => ({
  ok: false,
  error: validationFailed([...problems]),
});

const notAPost = (entry: BatchEntry): Problem => ({
  field: 'post',
  message: `must be an object, got ${typeName(entry.input)}`,
});

/** An empty scheduled_at cell means "now", not "a scheduled_at that is not a date". */
function withoutEmptySchedule(item: BatchItem): BatchItem {
  if (modeOf(item) === 'scheduled' || !('scheduled_at' in item)) return item;
  const { scheduled_at: _, ...rest } = item;
  return rest;
}
