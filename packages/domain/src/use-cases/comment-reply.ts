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
 *   One look-up at a time holds it (a second retry meanwhile is a 409 too); the worker's sweep
 *   (comment-reply-sweep.ts) settles the same way those whose client never asks again.
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
import type { PlatformComment, ReplyEnd } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { type CommentCall, commentCall, refusalError } from './comment-calls.ts';
import { type CommentView, findComment, viewOf } from './comments.ts';
import { storedFrom } from './comments-reads.ts';

/** The longest Idempotency-Key kept. */
export const REPLY_KEY_MAX_LENGTH = 255;
/** The longest a reply's platform call may take, whatever the in-flight time. */
const MAX_CALL_MS = 60_000;
const BEING_SENT = 'a reply with this Idempotency-Key is being sent: ask again shortly';

/**
 * A platform call of a reply (the send or a look-up) gets half the in-flight time, at most a
 * minute: a request cannot still be calling when its reply is old enough to be looked for.
 */
export const replyCallTimeoutMs = (deps: CoreDeps): number =>
  Math.min(MAX_CALL_MS, Math.floor(deps.settings.replyInFlightMs / 2));

/** The replies recorded before this may be looked for: their requests are over. */
export const replyAbandonedBefore = (deps: CoreDeps, now: Date): Date =>
  new Date(now.getTime() - deps.settings.replyInFlightMs);

/** How long a look-up holds a reply: past its call's timeout, so only a dead holder loses it. */
export const replyLookupHoldUntil = (deps: CoreDeps, now: Date): Date =>
  new Date(now.getTime() + deps.settings.replyInFlightMs);

const callSignal = (deps: CoreDeps, signal?: AbortSignal): AbortSignal => {
  const timeout = AbortSignal.timeout(replyCallTimeoutMs(deps));
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
};

/** The text checked against the platform's limit (code points), every problem named. */
function checkText(text: string, max: number, platform: string): DomainError | null {
  const length = [...text].length;
  if (text.trim() === '' || length > max) {
    const message = `must be 1 to ${max} characters (the ${platform} limit for a reply); it has ${length}`;
    return validationFailed([{ field: 'text', message }]);
  }
  return null;
}

/** What a reply that ended answers: the comment it posted, or the 409 of an unknown outcome. */
async function answerEnded(
  deps: CoreDeps,
  reply: CommentReply,
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
    default:
      return err(conflict(BEING_SENT));
  }
}

/**
 * Ends a `sending` reply; when someone else ended it first (a look-up whose hold passed), what
 * they recorded is the answer, so every request with the key hears the same.
 */
async function endOrAnswer(
  deps: CoreDeps,
  reply: CommentReply,
  end: ReplyEnd,
  answer: Result<CommentView, DomainError>,
): Promise<Result<CommentView, DomainError>> {
  if (await deps.repos.comments.endReply(reply.id, end)) return answer;
  const stored = await deps.repos.comments.findReply(reply.accountId, reply.idempotencyKey);
  return answerEnded(deps, stored ?? reply);
}

/** Stores the reply as our own comment (or finds it, when a read stored it first) and ends it. */
async function recordSent(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  posted: PlatformComment,
): Promise<Result<CommentView, DomainError>> {
  const row = storedFrom(deps, parent, { ...posted, mine: true }, deps.clock.now());
  const [inserted] = await deps.repos.comments.insertNew([row]);
  const stored =
    inserted ??
    (await deps.repos.comments.findByPlatformId(parent.targetId, posted.platformCommentId)) ??
    row;
  const end: ReplyEnd = {
    state: 'sent',
    platformCommentId: posted.platformCommentId,
    replyCommentId: stored.id,
  };
  return endOrAnswer(deps, reply, end, ok(viewOf(deps, { ...stored, parentId: parent.id })));
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
      signal: callSignal(deps),
    });
  } catch (error) {
    // No answer: the reply may be posted. It stays `sending`; the same key looks it up later.
    const message = `${parent.platform} did not answer (${errorMessage(error)}): ask again with the same Idempotency-Key, the reply is looked for before anything is sent again`;
    return err({ code: 'platform_unavailable', message });
  }
  if (outcome.kind === 'sent') return recordSent(deps, parent, reply, outcome.comment);
  // Every answer below is the platform's refusal: nothing was posted.
  const error = await refusalError(deps, call.connection, outcome);
  return endOrAnswer(deps, reply, { state: 'failed', error: error.message }, err(error));
}

/** Ends a reply that can never be looked for (its connection or post is gone) `outcome_unknown`. */
export async function endReplyUnknown(
  deps: CoreDeps,
  reply: CommentReply,
  why: string,
): Promise<Result<CommentView, DomainError>> {
  const unknown = err(conflict(`the reply's outcome is unknown (${why}): it is not sent again`));
  return endOrAnswer(deps, reply, { state: 'outcome_unknown', error: why }, unknown);
}

/**
 * Settles a `sending` reply its request left, held for this look-up by the caller (a retry
 * with its key, or the worker's sweep): looked for on the platform, never sent. Found, it is
 * `sent` and stored as our comment; not found, or the platform did not answer the look-up, it
 * ends `outcome_unknown` (a look-up is not tried again: nothing could make it certain). A
 * look-up stopped by `signal` (the worker stopping) decides nothing: the reply stays `sending`
 * (503) and is taken again when the hold passes.
 */
export async function settleAbandonedReply(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  call: CommentCall,
  signal?: AbortSignal,
): Promise<Result<CommentView, DomainError>> {
  const found = await call.client
    .findReply({
      ...call.request,
      text: reply.text,
      since: reply.intentAt,
      idempotencyKey: reply.id,
      signal: callSignal(deps, signal),
    })
    .catch(() => null);
  if (found?.kind === 'found') return recordSent(deps, parent, reply, found.comment);
  if (found === null && signal?.aborted) {
    return err({ code: 'platform_unavailable', message: 'the look-up was stopped: ask again' });
  }
  return endReplyUnknown(
    deps,
    reply,
    'an earlier attempt may have posted it and it was not found on the platform',
  );
}

/** A `sending` reply asked again: still on its way, being looked for, or looked for now. */
async function resume(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  call: CommentCall,
): Promise<Result<CommentView, DomainError>> {
  const now = deps.clock.now();
  const before = replyAbandonedBefore(deps, now);
  if (reply.intentAt >= before) return err(conflict(BEING_SENT));
  const held = await deps.repos.comments.claimReplyLookup(
    reply.id,
    before,
    now,
    replyLookupHoldUntil(deps, now),
  );
  if (!held) {
    // Another look-up holds it (or just ended it): what it recorded, or ask again shortly.
    const stored = await deps.repos.comments.findReply(reply.accountId, reply.idempotencyKey);
    return answerEnded(deps, stored ?? reply);
  }
  return settleAbandonedReply(deps, parent, reply, call);
}

/** What an earlier request with the same key left decides what this one does. */
async function replay(
  deps: CoreDeps,
  parent: StoredComment,
  reply: CommentReply,
  call: CommentCall,
): Promise<Result<CommentView, DomainError>> {
  switch (reply.state) {
    case 'sent':
    case 'outcome_unknown':
      return answerEnded(deps, reply);
    case 'failed': {
      const intentAt = deps.clock.now();
      if (!(await deps.repos.comments.restartReply(reply.id, intentAt))) {
        return err(conflict(BEING_SENT));
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
