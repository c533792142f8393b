/**
 * GET /posts: the caller's own posts, newest first, optionally of one status. The one exception
 * to "your own posts" is the approvers' list: `status=pending_approval` in one team, asked by an
 * owner or an admin of it, holds every post waiting there, whoever created it
 * (docs/api.md#approval).
 */
import type { CoreDeps } from '../deps.ts';
import type { DomainError } from '../errors.ts';
import type { Actor, PostStatus, PostWithTargets } from '../model.ts';
import type { PostPage } from '../ports/index.ts';
import { ok, type Result } from '../result.ts';
import { mayApprove } from '../rules/approval-rules.ts';
import { canAccessAccount, isTeamKey } from './access.ts';
import { pageOf, pageRequest } from './paging.ts';

/**
 * The accounts whose posts the caller lists: only those it can act in now. A team key: its team.
 * `accountId`: that one account, when the caller reaches it. Otherwise the user's personal
 * account and every team they are a member of now (one read), so a member removed from a team
 * no longer lists its posts, not even those they created there.
 */
async function listableAccounts(
  deps: CoreDeps,
  actor: Actor,
  accountId?: string,
): Promise<string[]> {
  if (isTeamKey(actor)) {
    return accountId === undefined || accountId === actor.keyAccountId ? [actor.keyAccountId] : [];
  }
  if (accountId !== undefined) {
    return (await canAccessAccount(deps, actor, accountId)) ? [accountId] : [];
  }
  const teams = await deps.repos.accounts.listTeamsOfUser(actor.userId);
  return [actor.userId, ...teams.map((team) => team.account.id)];
}

/** Which posts a list holds: the accounts, and whose (the caller's, or anyone's). */
export interface PostListFilter {
  /** The one account asked for (`workspace_id`); absent: every account the caller acts in. */
  accountId?: string;
  status?: PostStatus;
}

const filterOf = (accountId?: string, status?: PostStatus): PostListFilter => ({
  ...(accountId === undefined ? {} : { accountId }),
  ...(status === undefined ? {} : { status }),
});

/** Reads one list, or every post of it without `page`. */
async function readList(
  deps: CoreDeps,
  actor: Actor,
  filter: PostListFilter,
  page?: PostPage,
): Promise<PostWithTargets[]> {
  const { accountId, status } = filter;
  const accounts = await listableAccounts(deps, actor, accountId);
  if (status === 'pending_approval' && accountId !== undefined && accounts.length > 0) {
    const account = await deps.repos.accounts.findAccountById(accountId);
    const role = await canAccessAccount(deps, actor, accountId);
    // What waits for the caller's decision: every creator's, in a team the caller approves in.
    if (account?.kind === 'team' && mayApprove(role)) {
      return deps.repos.posts.listByStatus(accounts, status, page);
    }
  }
  return deps.repos.posts.listByCreator(actor.userId, accounts, page, status);
}

/**
 * The caller's own posts, newest first, in the accounts the caller can act in now (a team key:
 * its team only); with `status`, only those in it.
 */
export async function listPosts(
  deps: CoreDeps,
  actor: Actor,
  accountId?: string,
  status?: PostStatus,
): Promise<PostWithTargets[]> {
  return readList(deps, actor, filterOf(accountId, status));
}

/** One page of posts; `nextCursor` is null on the last page. */
export interface PostsPage {
  posts: PostWithTargets[];
  nextCursor: string | null;
}

/**
 * `listPosts`, one page at a time (keyset pagination on created_at desc, id desc): at most
 * `limit` posts after the `before` cursor. `nextCursor` (the last post's) is null when no post
 * follows.
 */
export async function listPostsPage(
  deps: CoreDeps,
  actor: Actor,
  page: { limit: number; before?: string },
  accountId?: string,
  status?: PostStatus,
): Promise<Result<PostsPage, DomainError>> {
  const checked = pageRequest(page);
  if (!checked.ok) return checked;
  const { limit, before } = checked.value;
  const found = await readList(deps, actor, filterOf(accountId, status), {
    limit: limit + 1,
    ...(before ? { before } : {}),
  });
  const { items, nextCursor } = pageOf(found, limit);
  return ok({ posts: items, nextCursor });
}
