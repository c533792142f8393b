/**
 * POST /comments/:id/replies: a reply posted on the comment's platform at most once per
 * Idempotency-Key, whatever happens to the request.
 *
 * The reply is recorded (`sending`, with its key) before the platform is called, and its
 * platform id after. A request with a key already recorded:
 * - `sent`: answers the reply posted the first time, nothing called;
 * - `failed` (the platform refused it, so nothing was posted): tried again;
 * - `outcome_unknown`: a 409 saying so, never sent again;
 * - `sending`: another request holds it (409 while it may still be running), or one that died
 *   left it: the reply is looked for on the platform (ours, this text, after the intent); found,
 *   it is `sent`; not found or unanswered, it ends `outcome_unknown` rather than risk a second.
 * A request without a key gets one of its own: it is protected from nothing but its own crash.
 */
import type { CommentReply, StoredComment } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import {
  conflict,
  type DomainError,
  errorMessage,
  unsupported,
  validationFailed,
} from '../errors.ts';
import type { Actor } from '../model.ts';
import type { PlatformComment } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { type CommentCall, commentCall, refusalError } from './comment-calls.ts';
import { type CommentView, findComment, viewOf } from './comments.ts';
import { storedFrom } from './comments-reads.ts';

/** A `sending` reply younger than this may still be on its way: its request is not over. */
export const REPLY_IN_FLIGHT_MS = 120_000;
/** The longest Idempotency-Key kept. */
export const REPLY_KEY_MAX_LENGTH = 255;
const TIMEOUT_MS = 60_000;

/** The text checked against the platform's limit (code points), every problem named. */
function checkText(text: string, max: number, platform: string): DomainError | null {
  const length = [...text].length;
  if (text.trim() === '' || length > max) {
    const message = `must be 1 to ${max} characters (the ${platform} limit for a reply); it has ${length}`;
    return validationFailed([{ field: 'text', message }]);
  }
  return null;
}

/** Stores the reply as our own comment (or finds it, when a read stored it first) and ends it. */
async function recordSent(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  posted: PlatformComment,
): Promise<CommentView> {
  const row = storedFrom(deps, parent, { ...posted, mine: true }, deps.clock.now());
  const [inserted] = await deps.repos.comments.insertNew([row]);
  const stored =
    inserted ??
    (await deps.repos.comments.findByPlatformId(parent.targetId, posted.platformCommentId)) ??
    row;
  await deps.repos.comments.endReply(reply.id, {
    state: 'sent',
    platformCommentId: posted.platformCommentId,
    replyCommentId: stored.id,
  });
  return viewOf(deps, { ...stored, parentId: parent.id });
}

/** Sends a reply whose intent is recorded, and records how it ended. */
async function send(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  call: CommentCall,
): Promise<Result<CommentView, DomainError>> {
  let outcome: Awaited<ReturnType<typeof call.client.reply>>;
  try {
    outcome = await call.client.reply({
      ...call.request,
      text: reply.text,
      idempotencyKey: reply.id,
      intentAt: reply.intentAt,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    // No answer: the reply may be posted. It stays `sending`; the same key looks it up later.
    const message = `${parent.platform} did not answer (${errorMessage(error)}): ask again with the same Idempotency-Key, the reply is looked for before anything is sent again`;
    return err({ code: 'platform_unavailable', message });
  }
  if (outcome.kind === 'sent') return ok(await recordSent(deps, parent, reply, outcome.comment));
  // Every answer below is the platform's refusal: nothing was posted.
  const error = await refusalError(deps, call.connection, outcome);
  await deps.repos.comments.endReply(reply.id, { state: 'failed', error: error.message });
  return err(error);
}

/** A `sending` reply left by an earlier request: found on the platform, or never sent again. */
async function resume(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  call: CommentCall,
): Promise<Result<CommentView, DomainError>> {
  const age = deps.clock.now().getTime() - reply.intentAt.getTime();
  if (age < REPLY_IN_FLIGHT_MS) {
    return err(conflict('a reply with this Idempotency-Key is being sent: ask again shortly'));
  }
  const found = await call.client
    .findReply({
      ...call.request,
      text: reply.text,
      since: reply.intentAt,
      idempotencyKey: reply.id,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    .catch(() => null);
  if (found?.kind === 'found') return ok(await recordSent(deps, parent, reply, found.comment));
  const why = 'an earlier attempt may have posted it and it was not found on the platform';
  await deps.repos.comments.endReply(reply.id, { state: 'outcome_unknown', error: why });
  return err(conflict(`the reply's outcome is unknown (${why}): it is not sent again`));
}

/** What an earlier request with the same key left decides what this one does. */
async function replay(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  call: CommentCall,
): Promise<Result<CommentView, DomainError>> {
  switch (reply.state) {
    case 'sent': {
      const stored = reply.replyCommentId
        ? await deps.repos.comments.findById(reply.replyCommentId)
        : null;
      if (!stored) return err(conflict('the reply sent with this Idempotency-Key was deleted'));
      return ok(viewOf(deps, stored));
    }
    case 'outcome_unknown':
      return err(conflict(`the reply's outcome is unknown (${reply.error}): it is not sent again`));
    case 'failed': {
      const intentAt = deps.clock.now();
      if (!(await deps.repos.comments.restartReply(reply.id, intentAt))) {
        return err(conflict('a reply with this Idempotency-Key is being sent: ask again shortly'));
      }
      return send(deps, parent, { ...reply, state: 'sending', intentAt }, call);
    }
    case 'sending':
      return resume(deps, parent, reply, call);
  }
}

/** POST /comments/:id/replies: the reply, posted once, as a comment of ours. */
export async function replyToComment(
  deps: CoreDeps,
  actor: Actor,
  commentId: string,
  text: string,
  idempotencyKey?: string,
): Promise<Result<CommentView, DomainError>> {
  const found = await findComment(deps, actor, commentId);
  if (!found.ok) return found;
  const parent = found.value;
  const call = await commentCall(deps, parent);
  if (!call.ok) return call;
  const { client } = call.value;
  const max = client.replyMaxLength(call.value.request.connection.platformData);
  const invalid = checkText(text, max, parent.platform);
  if (invalid) return err(invalid);
  if (!client.can(parent).reply) {
    return err(unsupported(`this ${parent.platform} comment cannot be answered`));
  }
  const { reply, created } = await deps.repos.comments.createReply({
    id: deps.ids.newId(),
    accountId: parent.accountId,
    commentId: parent.id,
    idempotencyKey: idempotencyKey ?? deps.ids.newId(),
    text,
    state: 'sending',
    intentAt: deps.clock.now(),
    platformCommentId: null,
    replyCommentId: null,
    error: null,
  });
  if (created) return send(deps, parent, reply, call.value);
  if (reply.commentId !== parent.id || reply.text !== text) {
    return err(conflict('this Idempotency-Key was used for another reply'));
  }
  return replay(deps, parent, reply, call.value);
}
