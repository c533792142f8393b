/**
 * What a publisher is handed for one target: the post, the connection's tokens, its resume
 * state and the hooks that save it. Saving runs under the target's lease, and a platform's
 * answer, once received, is written with retries: it lives nowhere else.
 */
import type { CoreDeps } from '../deps.ts';
import type { Post, PostTarget, ResumeState, SocialAccount } from '../model.ts';
import type { PublishConnection, PublishRequest, RefreshedTokens } from '../ports/index.ts';
import { secretBinding } from '../secret-cipher.ts';
import { intentOf, withIntent, withoutIntent } from './publish-intent.ts';

export const leaseUntil = (deps: CoreDeps): Date =>
  new Date(deps.clock.now().getTime() + deps.settings.targetLeaseMs);

/**
 * Keeps the claim on a target alive while its publisher runs, and aborts the publisher when
 * the claim is gone (another worker took over after a stall): two publishers must never race.
 */
export function keepLease(deps: CoreDeps, targetId: string, abort: AbortController): () => void {
  const timer = setInterval(
    () => {
      deps.repos.posts.renewLease(targetId, leaseUntil(deps), deps.clock.now()).then(
        (held) => {
          if (!held) abort.abort(new Error('lease lost'));
        },
        (error: unknown) => {
          // Storage hiccup: the lease may still be valid, the next renewal tries again.
          deps.logger.warn({ targetId, err: String(error) }, 'lease renewal failed');
        },
      );
    },
    Math.max(1, Math.floor(deps.settings.targetLeaseMs / 3)),
  );
  timer.unref?.();
  return () => clearInterval(timer);
}

/** Waits between tries of a write that must not be lost: about 30 s in all, then it gives up. */
const STORE_RETRY_DELAYS_MS = [250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000];

async function writeWithRetries(
  write: () => Promise<void>,
  onFailure: (attempt: number, error: unknown) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const delay = STORE_RETRY_DELAYS_MS[attempt - 1];
      if (delay === undefined) throw error;
      onFailure(attempt, error);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** A connection with its tokens decrypted, for the duration of one call to its platform. */
export function decryptConnection(
  deps: Pick<CoreDeps, 'cipher'>,
  connection: SocialAccount,
): PublishConnection {
  const { cipher } = deps;
  return {
    id: connection.id,
    platform: connection.platform,
    externalId: connection.externalId,
    accessToken: cipher.decrypt(
      connection.accessTokenCiphertext,
      secretBinding.accessToken(connection.id),
    ),
    refreshToken:
      connection.refreshTokenCiphertext === null
        ? null
        : cipher.decrypt(
            connection.refreshTokenCiphertext,
            secretBinding.refreshToken(connection.id),
          ),
    tokenExpiresAt: connection.tokenExpiresAt,
    platformData: connection.platformData ?? null,
  };
}

/** Stores the tokens a platform call renewed (encrypted, bound to the connection). */
export function tokenSaver(
  deps: CoreDeps,
  connection: SocialAccount,
): (tokens: RefreshedTokens) => Promise<void> {
  const { cipher } = deps;
  return (tokens) =>
    deps.repos.socialAccounts.updateTokens(
      connection.id,
      {
        accessTokenCiphertext: cipher.encrypt(
          tokens.accessToken,
          secretBinding.accessToken(connection.id),
        ),
        // Platforms that do not rotate refresh tokens return none: keep the old one.
        refreshTokenCiphertext:
          tokens.refreshToken === null
            ? connection.refreshTokenCiphertext
            : cipher.encrypt(tokens.refreshToken, secretBinding.refreshToken(connection.id)),
        tokenExpiresAt: tokens.expiresAt,
      },
      deps.clock.now(),
    );
}

export function buildRequest(
  deps: CoreDeps,
  post: Post,
  target: PostTarget,
  connection: SocialAccount,
  signal: AbortSignal,
  beforeCountedCall: () => Promise<void>,
): PublishRequest {
  const save = (state: ResumeState) =>
    deps.repos.posts.saveResumeState(target.id, state, leaseUntil(deps), deps.clock.now());
  // Once a platform has answered a create call, its answer lives only in this process until it
  // is stored: a database blip must not turn it into an unknown outcome. Recording an intent is
  // tried once (nothing has been sent while it fails); taking it back after a failed record is
  // tried again like an answer (see recordIntent).
  const saveWithRetries = (state: ResumeState, what: string) =>
    writeWithRetries(
      () => save(state),
      (attempt, error) =>
        deps.logger.warn(
          { targetId: target.id, attempt, err: String(error) },
          `could not store ${what} yet; trying again`,
        ),
    );
  const saveAnswer = (state: ResumeState) => saveWithRetries(state, 'the platform answer');
  // The publisher's own state as last saved: an intent is recorded beside it.
  let own = withoutIntent(target.resumeState);
  const recordIntent = async (step: string) => {
    try {
      await save(withIntent(own, { step, at: deps.clock.now() }));
    } catch (error) {
      // Nothing is sent after a failed record, but the write may have committed all the same
      // (the connection lost after the commit, before its answer): an intent left behind would
      // tell the next run that the call went out, and a platform with no look-up would end
      // `outcome_unknown` for a post it never received. So the state goes back as it was.
      await saveWithRetries(own ?? {}, 'the state before an unrecorded intent').catch(() => {});
      throw error;
    }
  };
  return {
    post,
    // Publishers see their own ids only; the intent comes as `intent`.
    target: { ...target, resumeState: own },
    intent: intentOf(target.resumeState),
    recordIntent,
    clearIntent: () => saveAnswer(own ?? {}),
    connection: decryptConnection(deps, connection),
    saveProgress: (state) => {
      own = state;
      return saveAnswer(state);
    },
    saveTokens: tokenSaver(deps, connection),
    beforeCountedCall,
    signal,
  };
}
