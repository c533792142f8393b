import type { CoreDeps } from '../deps.ts';
import {
  conflict,
  type DomainError,
  forbidden,
  limitExceeded,
  notFound,
  validationFailed,
} from '../errors.ts';
import type { Account, Actor, Membership, Role } from '../model.ts';
import type { Repositories } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import { validateMemberInput } from '../rules/account-rules.ts';
import { validateWorkspaceName } from '../rules/names.ts';
import { isUuid } from '../rules/shape.ts';
import { canAccessAccount, isTeamKey } from './access.ts';

export async function createWorkspace(
  deps: CoreDeps,
  actor: Actor,
  input: { name?: unknown },
): Promise<Result<Account, DomainError>> {
  // A team key acts for its team only; a new team is its creator's own doing, not the team's.
  if (isTeamKey(actor)) {
    return err(
      forbidden(
        'a team API key acts for its workspace only and cannot create workspaces: use a personal API key or a user token',
      ),
    );
  }
  const problems = validateWorkspaceName(input.name);
  if (problems.length > 0) return err(validationFailed(problems));
  const now = deps.clock.now();
  const account: Account = {
    id: deps.ids.newId(),
    kind: 'team',
    name: String(input.name).trim(),
    approvalRequired: false,
    createdAt: now,
  };
  // Count and create in one unit of work (the user locked): the limit holds under races.
  return deps.uow.run(async (repos) => {
    const max = deps.settings.maxWorkspacesPerUser;
    if ((await repos.accounts.countTeamsOwnedBy(actor.userId)) >= max) {
      return err(
        limitExceeded(`a user may own at most ${max} workspaces (WORKSPACES_MAX_PER_USER)`),
      );
    }
    await repos.accounts.createAccount(account);
    await repos.accounts.addMembership({
      accountId: account.id,
      userId: actor.userId,
      role: 'owner',
      createdAt: now,
    });
    return ok(account);
  });
}

export async function listWorkspaces(
  deps: CoreDeps,
  actor: Actor,
): Promise<Array<{ account: Account; role: Role }>> {
  const teams = await deps.repos.accounts.listTeamsOfUser(actor.userId);
  // A team key sees its own team only, like every other lookup made with it.
  return isTeamKey(actor) ? teams.filter((team) => team.account.id === actor.keyAccountId) : teams;
}

/** The caller's role in a team workspace, or the error to answer with. */
async function callerRole(
  deps: CoreDeps,
  actor: Actor,
  workspaceId: string,
): Promise<Result<Role, DomainError>> {
  const account = isUuid(workspaceId)
    ? await deps.repos.accounts.findAccountById(workspaceId)
    : null;
  const role = account ? await canAccessAccount(deps, actor, workspaceId) : null;
  if (!account || !role) return err(forbidden('you are not a member of this workspace'));
  if (account.kind !== 'team') return err(forbidden('a personal account has no members'));
  return ok(role);
}

const isOwnerOrAdmin = (role: Role): boolean => role === 'owner' || role === 'admin';

/** The body of `PATCH /workspaces/:id`: the settings to change. */
export interface WorkspaceSettingsInput {
  approvalRequired?: unknown;
}

/**
 * Changes a team's settings (owners and admins): `approval_required` holds members' posts for
 * approval from now on. Turning it off releases nothing: posts already waiting still wait for a
 * decision (or a cancel), as their creator was told. A personal account has no members to hold.
 */
export async function updateWorkspace(
  deps: CoreDeps,
  actor: Actor,
  workspaceId: string,
  input: WorkspaceSettingsInput,
): Promise<Result<{ account: Account; role: Role }, DomainError>> {
  const account = isUuid(workspaceId)
    ? await deps.repos.accounts.findAccountById(workspaceId)
    : null;
  if (account?.kind === 'personal' && (await canAccessAccount(deps, actor, workspaceId))) {
    return err(
      forbidden('a personal account has one owner and no members: approval applies to workspaces'),
    );
  }
  const caller = await callerRole(deps, actor, workspaceId);
  if (!caller.ok) return caller;
  if (!isOwnerOrAdmin(caller.value)) {
    return err(forbidden("only an owner or an admin may change the workspace's settings"));
  }
  const { approvalRequired } = input;
  if (approvalRequired === undefined) {
    return err(
      validationFailed([{ field: 'approval_required', message: 'is required (a boolean)' }]),
    );
  }
  if (typeof approvalRequired !== 'boolean') {
    return err(validationFailed([{ field: 'approval_required', message: 'must be a boolean' }]));
  }
  await deps.repos.accounts.setApprovalRequired(workspaceId, approvalRequired);
  const updated = await deps.repos.accounts.findAccountById(workspaceId);
  // Deleted in between: as if it never existed.
  if (!updated) return err(forbidden('you are not a member of this workspace'));
  return ok({ account: updated, role: caller.value });
}

async function ownerCount(repos: Repositories, workspaceId: string): Promise<number> {
  const members = await repos.accounts.listMemberships(workspaceId);
  return members.filter((member) => member.role === 'owner').length;
}

/** Adds a member or changes a member's role. */
export async function addMember(
  deps: CoreDeps,
  actor: Actor,
  workspaceId: string,
  input: { userId?: unknown; role?: unknown },
): Promise<Result<Membership, DomainError>> {
  const caller = await callerRole(deps, actor, workspaceId);
  if (!caller.ok) return caller;
  if (!isOwnerOrAdmin(caller.value))
    return err(forbidden('only an owner or an admin may add members'));
  const problems = validateMemberInput(input);
  const user =
    problems.length === 0 ? await deps.repos.accounts.findUserById(String(input.userId)) : null;
  if (problems.length === 0 && !user) problems.push({ field: 'user_id', message: 'no such user' });
  if (!user || problems.length > 0) return err(validationFailed(problems));
  const role = input.role as Role;
  const current = await deps.repos.accounts.findMembership(workspaceId, user.id);
  if ((role === 'owner' || current?.role === 'owner') && caller.value !== 'owner') {
    return err(forbidden('only an owner may grant or take away the owner role'));
  }
  return deps.uow.run(async (repos) => {
    if (
      current?.role === 'owner' &&
      role !== 'owner' &&
      (await ownerCount(repos, workspaceId)) <= 1
    ) {
      return err(conflict('a workspace must keep at least one owner'));
    }
    const membership: Membership = {
      accountId: workspaceId,
      userId: user.id,
      role,
      createdAt: current?.createdAt ?? deps.clock.now(),
    };
    await repos.accounts.upsertMembership(membership);
    return ok(membership);
  });
}

/** Owners and admins remove others; anyone may leave. The last owner stays. */
export async function removeMember(
  deps: CoreDeps,
  actor: Actor,
  workspaceId: string,
  userId: string,
): Promise<Result<void, DomainError>> {
  const caller = await callerRole(deps, actor, workspaceId);
  if (!caller.ok) return caller;
  const self = userId === actor.userId;
  if (!self && !isOwnerOrAdmin(caller.value)) {
    return err(forbidden('only an owner or an admin may remove members'));
  }
  const target = isUuid(userId)
    ? await deps.repos.accounts.findMembership(workspaceId, userId)
    : null;
  if (!target) return err(notFound('member'));
  if (target.role === 'owner' && !self && caller.value !== 'owner') {
    return err(forbidden('only an owner may remove an owner'));
  }
  return deps.uow.run(async (repos) => {
    if (target.role === 'owner' && (await ownerCount(repos, workspaceId)) <= 1) {
      return err(conflict('the last owner of a workspace cannot be removed'));
    }
    await repos.accounts.removeMembership(workspaceId, userId);
    return ok(undefined);
  });
}
