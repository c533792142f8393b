import type { OAuthState } from '../../model.ts';

/** Connect flows in progress (their single-use states). */
export interface OAuthStateRepository {
  insert(state: OAuthState): Promise<void>;
  /** The state with this hash, left in place (the consent is being opened). */
  find(stateHash: string): Promise<OAuthState | null>;
  /**
   * Binds the flow to the browser that opened it: sets `browserHash` only while none is set, so
   * of two browsers opening the same flow exactly one wins. True when this call set it.
   */
  bindBrowser(stateHash: string, browserHash: string): Promise<boolean>;
  /** Deletes and returns the state with this hash in one statement: single use. */
  take(stateHash: string): Promise<OAuthState | null>;
  /** Removes states that expired before `before`; returns how many. */
  deleteExpired(before: Date): Promise<number>;
}
