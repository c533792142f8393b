import type { Account, AccountRepository, Membership, Role, User } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { accountColumns, membershipColumns, userColumns } from './columns.ts';

export function createAccountRepository(db: Kysely<Database>): AccountRepository {
  const findUser = async (column: 'id' | 'email' | 'external_subject', value: string) =>
    (await db
      .selectFrom('users')
      .select(userColumns)
      .where(column, '=', value)
      .executeTakeFirst()) ?? null;

  return {
    async createUser(user: User): Promise<void> {
      await db
        .insertInto('users')
        .values({
          id: user.id,
          email: user.email,
          external_subject: user.externalSubject,
          created_at: user.createdAt,
        })
        .execute();
    },

    findUserById: (id) => findUser('id', id),
    findUserByEmail: (email) => findUser('email', email),
    findUserBySubject: (subject) => findUser('external_subject', subject),

    async createAccount(account: Account): Promise<void> {
      await db
        .insertInto('accounts')
        .values({
          id: account.id,
          kind: account.kind,
          name: account.name,
          approval_required: account.approvalRequired,
          created_at: account.createdAt,
        })
        .execute();
    },

    async findAccountById(id: string): Promise<Account | null> {
      return (
        (await db
          .selectFrom('accounts')
          .select(accountColumns)
          .where('id', '=', id)
          .executeTakeFirst()) ?? null
      );
    },

    async setApprovalRequired(accountId: string, required: boolean): Promise<boolean> {
      const result = await db
        .updateTable('accounts')
        .set({ approval_required: required })
        .where('id', '=', accountId)
        .where('kind', '=', 'team')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async addMembership(membership: Membership): Promise<void> {
      await db.insertInto('memberships').values(membershipRow(membership)).execute();
    },

    async upsertMembership(membership: Membership): Promise<void> {
      await db
        .insertInto('memberships')
        .values(membershipRow(membership))
        .onConflict((conflict) =>
          conflict
            .columns(['account_id', 'user_id'])
            .doUpdateSet((eb) => ({ role: eb.ref('excluded.role') })),
        )
        .execute();
    },

    async removeMembership(accountId: string, userId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('memberships')
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async findMembership(accountId: string, userId: string): Promise<Membership | null> {
      return (
        (await db
          .selectFrom('memberships')
          .select(membershipColumns)
          .where('account_id', '=', accountId)
          .where('user_id', '=', userId)
          .executeTakeFirst()) ?? null
      );
    },

    async listMemberships(accountId: string): Promise<Membership[]> {
      return db
        .selectFrom('memberships')
        .select(membershipColumns)
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('user_id')
        .execute();
    },

    async listTeamsOfUser(userId: string): Promise<Array<{ account: Account; role: Role }>> {
      const rows = await db
        .selectFrom('memberships')
        .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
        .select([...accountColumns, 'memberships.role as role'])
        .where('memberships.user_id', '=', userId)
        .where('accounts.kind', '=', 'team')
        .orderBy('accounts.created_at')
        .orderBy('accounts.id')
        .execute();
      return rows.map(({ role, ...account }) => ({ account, role }));
    },

    /** Locks the user row first inside a unit of work (two creates of one user run in turn). */
    async countTeamsOwnedBy(userId: string): Promise<number> {
      if (db.isTransaction) {
        await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
      }
      const row = await db
        .selectFrom('memberships')
        .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('memberships.user_id', '=', userId)
        .where('memberships.role', '=', 'owner')
        .where('accounts.kind', '=', 'team')
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async countUsers(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}

const membershipRow = (membership: Membership) => ({
  account_id: membership.accountId,
  user_id: membership.userId,
  role: membership.role,
  created_at: membership.createdAt,
});
