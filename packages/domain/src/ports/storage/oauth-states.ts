import type { OAuthState } from '../../model.ts';

/** Connect flows in progress (their single-use states). */
export interface OAuthStateRepository {
  insert(state: OAuthState): Promise<void>;
  /** Deletes and returns the state with this hash in one statement: single use. */
  take(stateHash: string): Promise<OAuthState | null>;
  /** Removes states that expired before `before`; returns how many. */
  deleteExpired(before: Date): Promise<number>;
}
