import type { Platform, PlatformData, SocialAccount } from '../../model.ts';

export interface SocialAccountRepository {
  insert(connection: SocialAccount): Promise<void>;
  findById(id: string): Promise<SocialAccount | null>;
  /** The connections with these ids that exist, in no particular order (one query). */
  findByIds(ids: readonly string[]): Promise<SocialAccount[]>;
  listByAccount(accountId: string): Promise<SocialAccount[]>;
  /**
   * How many connections the account holds, whatever their status
   * (SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT). Inside a unit of work it first locks the account, so
   * "count, then insert below the limit" cannot be raced.
   */
  countByAccount(accountId: string): Promise<number>;
  /** The account's most recently created active connection for the platform. */
  findActiveByPlatform(accountId: string, platform: Platform): Promise<SocialAccount | null>;
  /** New tokens; ends a refresh lease held on the connection. */
  updateTokens(
    id: string,
    tokens: {
      accessTokenCiphertext: string;
      refreshTokenCiphertext: string | null;
      tokenExpiresAt: Date | null;
    },
    at: Date,
  ): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** The account's connection for this platform account (active or not), for reconnects. */
  findByExternalId(
    accountId: string,
    platform: Platform,
    externalId: string,
  ): Promise<SocialAccount | null>;
  /** A reconnect: new tokens and scopes, status active; the id stays. */
  reconnect(id: string, fields: ReconnectFields, at: Date): Promise<void>;
  /** active -> expired; false when it was not active (already expired, or gone). */
  markExpired(id: string, at: Date): Promise<boolean>;
  /**
   * Claims up to `limit` active, non-sandbox connections whose token expires before `cutoff`
   * and that no other worker holds (refresh lease before `now`), holding each until
   * `leaseUntil`: one statement, so two workers never renew the same token.
   */
  claimExpiring(cutoff: Date, leaseUntil: Date, now: Date, limit: number): Promise<SocialAccount[]>;
}

export interface ReconnectFields {
  displayName: string | null;
  accessTokenCiphertext: string;
  refreshTokenCiphertext: string | null;
  tokenExpiresAt: Date | null;
  scopes: string[];
  /** The platform's facts as read again by this consent (absent: left as they are). */
  platformData?: PlatformData | null;
}
