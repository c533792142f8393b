import { type Account, type Membership, ROLES, type Role } from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from './common.ts';

export const RoleSchema = Type.Enum([...ROLES]);

export const WorkspaceSchema = Type.Object({
  id: Uuid('Pass it as workspace_id to act in this team'),
  name: Type.String(),
  role: RoleSchema,
  approval_required: Type.Boolean({
    description: "Members' posts wait for an owner's or an admin's approval (pending_approval)",
  }),
  created_at: Timestamp(),
});

export const MembershipSchema = Type.Object({
  workspace_id: Uuid(),
  user_id: Uuid(),
  role: RoleSchema,
  created_at: Timestamp(),
});

export const presentWorkspace = (account: Account, role: Role): Static<typeof WorkspaceSchema> => ({
  id: account.id,
  name: account.name,
  role,
  approval_required: account.approvalRequired,
  created_at: account.createdAt.toISOString(),
});

export const presentMembership = (membership: Membership): Static<typeof MembershipSchema> => ({
  workspace_id: membership.accountId,
  user_id: membership.userId,
  role: membership.role,
  created_at: membership.createdAt.toISOString(),
});
