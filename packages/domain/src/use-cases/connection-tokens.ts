/**
 * Keeping connections usable: tokens are renewed before they expire (a worker pass, not only
 * when a publish needs one), and a connection whose renewal the platform refuses is marked
 * `expired` and announced with the `social_account.expired` webhook event.
 */
import type { CoreDeps } from '../deps.ts';
import type { SocialAccount } from '../model.ts';
import { SecretUnreadableError, secretBinding } from '../secret-cipher.ts';
import { connectionEvent } from './event-bodies.ts';
import { emitEvents } from './event-deliveries.ts';

/**
 * Marks the connection expired and, when it was not already, creates one delivery per webhook
 * subscribed to `social_account.expired`. Safe to call twice: only the call that changed the
 * status notifies.
 */
export async function expireConnection(
  deps: CoreDeps,
  connection: SocialAccount,
  reason: string,
): Promise<void> {
  const now = deps.clock.now();
  const changed = await deps.repos.socialAccounts.markExpired(connection.id, now);
  if (!changed) return;
  deps.logger.warn(
    { socialAccountId: connection.id, platform: connection.platform, reason },
    'connection expired',
  );
  // Stored right after the status change (no unit of work): a crash between loses the event.
  await emitEvents(deps, [connectionEvent('social_account.expired', connection, { reason })]);
}

function storedTokens(deps: CoreDeps, connection: SocialAccount) {
  return {
    accessToken: deps.cipher.decrypt(
      connection.accessTokenCiphertext,
      secretBinding.accessToken(connection.id),
    ),
    refreshToken:
      connection.refreshTokenCiphertext === null
        ? null
        : deps.cipher.decrypt(
            connection.refreshTokenCiphertext,
            secretBinding.refreshToken(connection.id),
          ),
  };
}

export interface RefreshPassResult {
  refreshed: number;
  expired: number;
  /** Transient failures: tried again on a later pass. */
  failed: number;
}

/**
 * One pass: claims active connections whose token expires within the margin (a lease keeps
 * two workers from renewing the same rotating refresh token), renews each through its
 * platform, and stores the new tokens at once (a rotated refresh token is single-use).
 */
export async function refreshExpiringTokens(
  deps: CoreDeps,
  signal?: AbortSignal,
): Promise<RefreshPassResult> {
  const now = deps.clock.now();
  const { tokenRefreshMarginMs, tokenRefreshLeaseMs, reconcileBatchSize } = deps.settings;
  const claimed = await deps.repos.socialAccounts.claimExpiring(
    new Date(now.getTime() + tokenRefreshMarginMs),
    new Date(now.getTime() + tokenRefreshLeaseMs),
    now,
    reconcileBatchSize,
  );
  const result: RefreshPassResult = { refreshed: 0, expired: 0, failed: 0 };
  for (const connection of claimed) {
    if (signal?.aborted) break;
    // OAuth and credentials connections renew the same way (e.g. Bluesky's refreshSession).
    const connector =
      deps.platforms.oauth(connection.platform) ?? deps.platforms.credentials(connection.platform);
    if (!connector?.refresh) continue;
    let stored: { accessToken: string; refreshToken: string | null };
    try {
      stored = storedTokens(deps, connection);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      // One unreadable row must not stop the pass for the others; it is left as it is.
      deps.logger.error(
        { socialAccountId: connection.id, err: error.message },
        'token refresh skipped: the stored token cannot be decrypted',
      );
      result.failed += 1;
      continue;
    }
    const outcome = await connector.refresh(
      { externalId: connection.externalId, ...stored },
      signal,
    );
    if (outcome.kind === 'refreshed') {
      const { tokens } = outcome;
      await deps.repos.socialAccounts.updateTokens(
        connection.id,
        {
          accessTokenCiphertext: deps.cipher.encrypt(
            tokens.accessToken,
            secretBinding.accessToken(connection.id),
          ),
          // Platforms that do not rotate refresh tokens return none: keep the old one.
          refreshTokenCiphertext:
            tokens.refreshToken === null
              ? connection.refreshTokenCiphertext
              : deps.cipher.encrypt(tokens.refreshToken, secretBinding.refreshToken(connection.id)),
          tokenExpiresAt: tokens.expiresAt,
        },
        deps.clock.now(),
      );
      result.refreshed += 1;
    } else if (outcome.kind === 'refused') {
      await expireConnection(deps, connection, outcome.reason);
      result.expired += 1;
    } else {
      deps.logger.warn(
        { socialAccountId: connection.id, platform: connection.platform, reason: outcome.reason },
        'token refresh failed; retried on a later pass',
      );
      result.failed += 1;
    }
  }
  return result;
}
