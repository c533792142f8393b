import type { CoreDeps } from '../deps.ts';
import { type DomainError, errorMessage, notFound } from '../errors.ts';
import type { Actor, SocialAccount } from '../model.ts';
import type { PaceState, RateLimit } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { isUuid } from '../rules/shape.ts';
import { canAccessAccount } from './access.ts';
import { paceKey } from './pace-target.ts';

/** What is known of a connection's budget on its platform; null when it is not paced. */
export interface ConnectionLimitState extends PaceState {
  limit: RateLimit;
}

export interface SocialAccountDetail {
  connection: SocialAccount;
  rateLimit: ConnectionLimitState | null;
}

/**
 * One connection with its known limit state: our own count of its calls in the platform's
 * window and the platform's last refusal. A pacer that cannot answer leaves the state out
 * (null) rather than failing the read.
 */
export async function getSocialAccount(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<SocialAccountDetail, DomainError>> {
  const connection = isUuid(id) ? await deps.repos.socialAccounts.findById(id) : null;
  const role = connection ? await canAccessAccount(deps, actor, connection.accountId) : null;
  if (!connection || !role) return err(notFound('social account'));
  const limit = connection.sandbox ? null : (deps.pacing?.limitOf(connection.platform) ?? null);
  if (!deps.pacing || limit === null) return ok({ connection, rateLimit: null });
  try {
    const state = await deps.pacing.pacer.state(paceKey(connection), limit, deps.clock.now());
    return ok({ connection, rateLimit: { limit, ...state } });
  } catch (error) {
    deps.logger.warn(
      { socialAccountId: connection.id, err: errorMessage(error) },
      'pacer unavailable',
    );
    return ok({ connection, rateLimit: null });
  }
}
