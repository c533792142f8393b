/**
 * Contract of OAuthStateRepository: connect flows in progress; a state is taken (returned and
 * removed) in one step, so one callback only can use it.
 *
 *   import { describeOAuthStateRepositoryContract } from '@social-publisher/domain/contracts/storage-oauth-states';
 */
import { describe, expect, it } from 'vitest';
import type { OAuthState } from '../../model.ts';
import {
  ancient,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedUser,
  sha256Hex,
  useStorage,
} from './storage-fixtures.ts';

export function describeOAuthStateRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: OAuthStateRepository`, () => {
    const storage = useStorage(setup);
    const states = () => storage().repos.oauthStates;

    async function makeState(overrides: Partial<OAuthState> = {}): Promise<OAuthState> {
      const user = await seedUser(storage().repos);
      const createdAt = nextTime();
      return {
        id: newId(),
        stateHash: sha256Hex(newId()),
        accountId: user.id,
        userId: user.id,
        platform: 'tiktok',
        codeVerifierCiphertext: 'v1.nonce.cipher.tag',
        browserHash: null,
        returnUrl: 'https://app.example.com/done?x=1',
        connectParams: null,
        expiresAt: plus(createdAt, 600_000),
        createdAt,
        ...overrides,
      };
    }

    it('takes a state once: returned whole, then gone', async () => {
      const state = await makeState();
      await states().insert(state);
      expect(await states().take(state.stateHash)).toEqual(state);
      expect(await states().take(state.stateHash)).toBeNull();
      expect(await states().take(sha256Hex('unknown'))).toBeNull();
    });

    it('of concurrent takers exactly one gets the state', async () => {
      const state = await makeState({ returnUrl: null });
      await states().insert(state);
      const taken = await Promise.all(
        Array.from({ length: 5 }, () => states().take(state.stateHash)),
      );
      expect(taken.filter((t) => t !== null)).toEqual([state]);
    });

    it('finds a state without taking it; binds one browser, once', async () => {
      const state = await makeState();
      await states().insert(state);
      expect(await states().find(state.stateHash)).toEqual(state);
      expect(await states().find(sha256Hex('unknown'))).toBeNull();
      const first = sha256Hex('first browser');
      expect(await states().bindBrowser(state.stateHash, first)).toBe(true);
      expect(await states().bindBrowser(state.stateHash, sha256Hex('second browser'))).toBe(false);
      expect(await states().bindBrowser(sha256Hex('unknown'), first)).toBe(false);
      expect(await states().find(state.stateHash)).toEqual({ ...state, browserHash: first });
      expect(await states().take(state.stateHash)).toEqual({ ...state, browserHash: first });
    });

    it('of concurrent browsers exactly one binds the flow', async () => {
      const state = await makeState();
      await states().insert(state);
      const bound = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          states().bindBrowser(state.stateHash, sha256Hex(`browser ${i}`)),
        ),
      );
      expect(bound.filter(Boolean)).toHaveLength(1);
    });

    it('deletes the states that expired before a time, and only those', async () => {
      const old = await makeState({ expiresAt: ancient(10) });
      const older = await makeState({ expiresAt: ancient(5) });
      const live = await makeState({ expiresAt: ancient(30) });
      for (const s of [old, older, live]) await states().insert(s);
      expect(await states().deleteExpired(ancient(20))).toBe(2);
      expect(await states().take(old.stateHash)).toBeNull();
      expect(await states().take(live.stateHash)).toEqual(live);
    });
  });
}
