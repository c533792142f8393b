/**
 * Storage operations that only tests need, kept out of the production ports (no use case calls
 * them): the storage contract suites and the domain's tests use them to put one row in a known
 * state. Implemented by the in-memory fake (`memoryStorageTesting` below) and by
 * adapter-postgres (`postgresStorageTesting` in its src/testing.ts, which its tests import by
 * path; the package does not export it).
 */
import type { ConnectionStatus, PostTarget } from '../model.ts';
import { memoryClaimTarget } from './memory-posts.ts';
import { memorySetConnectionStatus } from './memory-social-accounts.ts';
import type { MemoryStore } from './memory-store.ts';

export interface StorageTesting {
  /**
   * Claims ONE target (`pending` -> `publishing`, attempts + 1, lease set; or, when
   * `allowExpiredLease`, a `publishing` target whose lease has run out): the per-target form of
   * the claim in `PostRepository.startPublish`. Of concurrent claimers exactly one wins. Returns the claimed
   * target, or null. Production always claims a post's targets together.
   */
  claimTarget(
    targetId: string,
    leaseExpiresAt: Date,
    now: Date,
    allowExpiredLease: boolean,
  ): Promise<PostTarget | null>;
  /**
   * Sets a connection's status as is (no rule checked; a missing id is a no-op). Production
   * changes it through `SocialAccountRepository.markExpired` and `reconnect`.
   */
  setConnectionStatus(id: string, status: ConnectionStatus, at: Date): Promise<void>;
}

/** The test-only operations on the in-memory store. */
export function memoryStorageTesting(store: MemoryStore): StorageTesting {
  return {
    claimTarget: memoryClaimTarget(store),
    setConnectionStatus: memorySetConnectionStatus(store),
  };
}
