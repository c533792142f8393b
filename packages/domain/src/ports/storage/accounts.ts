import type { Account, Membership, Role, User } from '../../model.ts';

export interface AccountRepository {
  createUser(user: User): Promise<void>;
  findUserById(id: string): Promise<User | null>;
  findUserByEmail(email: string): Promise<User | null>;
  findUserBySubject(subject: string): Promise<User | null>;
  createAccount(account: Account): Promise<void>;
  findAccountById(id: string): Promise<Account | null>;
  /** Sets a team's `approvalRequired`; false (nothing changed) when no team has this id. */
  setApprovalRequired(accountId: string, required: boolean): Promise<boolean>;
  addMembership(membership: Membership): Promise<void>;
  /** Inserts or changes the role of an existing membership. */
  upsertMembership(membership: Membership): Promise<void>;
  removeMembership(accountId: string, userId: string): Promise<boolean>;
  findMembership(accountId: string, userId: string): Promise<Membership | null>;
  /** Every membership of a team account, oldest first (owner checks, member listings). */
  listMemberships(accountId: string): Promise<Membership[]>;
  /** Team accounts the user belongs to, with the user's role. */
  listTeamsOfUser(userId: string): Promise<Array<{ account: Account; role: Role }>>;
  countUsers(): Promise<number>;
  /**
   * How many team accounts the user owns (WORKSPACES_MAX_PER_USER). Inside a unit of work it
   * first locks the user, so "count, then create below the limit" cannot be raced.
   */
  countTeamsOwnedBy(userId: string): Promise<number>;
}
