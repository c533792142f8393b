/** Who is calling and in which account: what every authenticated route starts from. */
import {
  type AccountContext,
  type Actor,
  type CoreDeps,
  resolveContext,
} from '@social-publisher/domain';
import type { FastifyRequest } from 'fastify';
import { unauthorizedError, unwrap } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every authenticated route; null elsewhere. */
    actor: Actor | null;
  }
}

export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthorizedError();
  return request.actor;
}

/** The account the request acts in: `workspace_id` (body or query) applied as docs/api.md#workspaces says. */
export async function contextOf(
  deps: CoreDeps,
  request: FastifyRequest,
  workspaceId: string | undefined,
): Promise<AccountContext> {
  return unwrap(await resolveContext(deps, actorOf(request), workspaceId));
}

/** The team a context acts in, or null for a personal account (whose id is its user's id). */
export const workspaceIdOf = (ctx: AccountContext): string | null =>
  ctx.accountId === ctx.userId ? null : ctx.accountId;
