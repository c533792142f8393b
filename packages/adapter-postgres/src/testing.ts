/**
 * Test-only storage operations (not part of any production port, not exported by the package):
 * the adapter's tests give them to the storage contract suites, which use them to put one row
 * in a known state. See StorageTesting in @social-publisher/domain/testing.
 */
import type { ConnectionStatus, PostTarget } from '@social-publisher/domain';
import type { StorageTesting } from '@social-publisher/domain/testing';
import type { Kysely } from 'kysely';
import { lookupCacheOf } from './lookup-cache.ts';
import { targetColumns } from './repositories/columns.ts';
import type { Database } from './schema.ts';

/** The test-only operations on this database. */
export function postgresStorageTesting(db: Kysely<Database>): StorageTesting {
  return {
    claimTarget: claimTargetForTests(db),
    setConnectionStatus: setConnectionStatusForTests(db),
  };
}

/** Claims ONE target with one conditional UPDATE: of concurrent claimers exactly one wins. */
export function claimTargetForTests(db: Kysely<Database>) {
  return async (
    targetId: string,
    leaseExpiresAt: Date,
    now: Date,
    allowExpiredLease: boolean,
  ): Promise<PostTarget | null> => {
    const claimed = await db
      .updateTable('post_targets')
      .set((eb) => ({
        status: 'publishing',
        attempts: eb('attempts', '+', 1),
        lease_expires_at: leaseExpiresAt,
        updated_at: now,
      }))
      .where('id', '=', targetId)
      .where((eb) =>
        allowExpiredLease
          ? eb.or([
              eb('status', '=', 'pending'),
              eb.and([eb('status', '=', 'publishing'), eb('lease_expires_at', '<=', now)]),
            ])
          : eb('status', '=', 'pending'),
      )
      .returning(targetColumns)
      .executeTakeFirst();
    return claimed ?? null;
  };
}

/** Sets a connection's status as is (a missing id is a no-op). */
export function setConnectionStatusForTests(db: Kysely<Database>) {
  return async (id: string, status: ConnectionStatus, at: Date): Promise<void> => {
    await db
      .updateTable('social_accounts')
      .set({ status, updated_at: at })
      .where('id', '=', id)
      .execute();
    // Written behind the repositories' back: the embedded mode's lookup cache must forget it.
    lookupCacheOf(db)?.invalidate();
  };
}
