// What every platform's delete shares (the PlatformRemover port): the parts of a published
// target in the order they come down, one delete call each, a part the platform says is already
// gone counted as removed, and the first other refusal ending the removal with the platform's
// own answer (read by the same api.ts mappers the publisher uses).
import type { RemoveOutcome, RemoveRequest } from '@social-publisher/domain';
import { AuthSession, type TokenRefresher } from './auth.ts';
import { notThePlatforms, refusalOf } from './outcome.ts';

/** What a part of a published target is: each platform may delete them differently. */
export type PartKind = 'follow_up' | 'first_comment' | 'post';

export interface TargetPart {
  kind: PartKind;
  /** The platform's id of the part, as the publisher recorded it. */
  id: string;
}

const PART_NAMES: Record<PartKind, string> = {
  follow_up: 'follow-up',
  first_comment: 'first comment',
  post: 'post',
};

/**
 * Thrown by a platform's reading of a refused delete when the platform says the part does not
 * exist (its 404, or its own "no such object" code): already deleted, so counted as removed.
 */
export class PartGone extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PartGone';
  }
}

/**
 * The parts to delete, in order: the thread's follow-ups last first (a reply never outlives the
 * post it answers by more than one call), the first comment, then the main post. An id met twice
 * or empty is asked once (or not at all).
 */
export function partsOf(request: RemoveRequest): TargetPart[] {
  const parts: TargetPart[] = [
    ...[...request.threadPostIds].reverse().map((id) => ({ kind: 'follow_up' as const, id })),
    ...(request.firstCommentId === null
      ? []
      : [{ kind: 'first_comment' as const, id: request.firstCommentId }]),
    { kind: 'post', id: request.platformPostId },
  ];
  const seen = new Set<string>();
  return parts.filter((part) => {
    if (part.id === '' || seen.has(part.id)) return false;
    seen.add(part.id);
    return true;
  });
}

/**
 * What an error thrown while deleting `part` means for the whole target (refusalOf): the part
 * is named after the platform's words of a wait or a failure.
 */
export const removeFailure = (
  error: unknown,
  part: TargetPart,
): Exclude<RemoveOutcome, { kind: 'removed' }> =>
  refusalOf(error, `while deleting the ${PART_NAMES[part.kind]} ${part.id}`);

/**
 * Deletes the target's parts one after the other with `removeOne` (which resolves once the part
 * is deleted, throws PartGone when the platform says it is not there, or throws what the
 * platform's mapper throws). Stops at the first failure: the parts already deleted stay deleted,
 * and asking again deletes the rest (each gone one answering as removed). An abort (shutdown,
 * lost lease) is rethrown, never turned into an outcome.
 */
export async function removeParts(
  request: RemoveRequest,
  removeOne: (part: TargetPart) => Promise<void>,
): Promise<RemoveOutcome> {
  for (const part of partsOf(request)) {
    try {
      await removeOne(part);
    } catch (error) {
      if (notThePlatforms(request.signal, error)) throw error;
      if (error instanceof PartGone) continue;
      return removeFailure(error, part);
    }
  }
  return { kind: 'removed' };
}

/**
 * The token session of one removal, for a platform whose refused token is renewed and tried
 * again (as its publisher does): renewed once through `refresher` when the worker gave a way to
 * keep the new tokens (`saveTokens`), else a refused token ends as `connection_expired`.
 */
export function removalSession(
  request: RemoveRequest,
  refresher: TokenRefresher | null,
  label: string,
): AuthSession {
  const { saveTokens } = request;
  if (!saveTokens) return new AuthSession({ ...request, saveTokens: async () => {} }, null, label);
  return new AuthSession({ ...request, saveTokens }, refresher, label);
}
