/** The rules of approval (docs/api.md#approval) that need no storage. */
import type { Problem } from '../errors.ts';
import type { Account, Role } from '../model.ts';
import { charLength, typeName } from './shape.ts';
import { unstorableTextReason } from './storable-text.ts';

/** The longest `reason` of `POST /posts/:id/reject`, in characters (code points). */
export const MAX_REJECTION_REASON_LENGTH = 1_000;

/** The roles that approve and reject posts, and whose own posts are never held. */
export const APPROVER_ROLES: readonly Role[] = ['owner', 'admin'];

export const mayApprove = (role: Role | null): boolean =>
  role !== null && APPROVER_ROLES.includes(role);

/**
 * Whether a post created or edited by someone with `role` (null: no longer a member) waits for
 * approval in `account`: a team that requires it, and anyone but an owner or an admin.
 */
export function holdsPostsOf(
  account: Pick<Account, 'kind' | 'approvalRequired'> | null,
  role: Role | null,
): boolean {
  return account?.kind === 'team' && account.approvalRequired && !mayApprove(role);
}

/** `reason` of a rejection: required, 1-1,000 characters once trimmed, storable text. */
export function validateRejectionReason(value: unknown): Problem[] {
  const field = 'reason';
  if (value === undefined || value === null) {
    return [{ field, message: 'is required: say why the post is rejected' }];
  }
  if (typeof value !== 'string') {
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  }
  const length = charLength(value.trim());
  if (length === 0) return [{ field, message: 'must not be empty' }];
  if (length > MAX_REJECTION_REASON_LENGTH) {
    return [{ field, message: `must be at most ${MAX_REJECTION_REASON_LENGTH} characters` }];
  }
  const unstorable = unstorableTextReason(value);
  return unstorable ? [{ field, message: unstorable }] : [];
}
