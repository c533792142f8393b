import type { Platform } from '../model.ts';
import type { ConnectedIdentity, RefreshInput, RefreshOutcome } from './oauth.ts';

/**
 * One field a credentials platform takes in the body of POST /social-accounts (e.g. Bluesky's
 * `handle` and `app_password`). Every field is a required non-empty string.
 */
export interface CredentialField {
  /** The body field, snake_case. */
  readonly name: string;
  /** What to put there, in one line (the OpenAPI document shows it). */
  readonly description: string;
  readonly maxLength: number;
  /**
   * A password, a key or a token: never logged, never returned. Stored only where it is itself
   * the connection's token (a Telegram bot token, a Discord webhook's), encrypted like every
   * token; otherwise only the tokens it buys are.
   */
  readonly secret: boolean;
}

/** Why a credentials connect failed: the platform's own code and words where it gave them. */
export interface CredentialsFailure {
  code: string;
  message: string;
  /** The platform could not be reached or failed on its side: the same fields may work later. */
  transient: boolean;
}

export type CredentialsOutcome =
  | { ok: true; identity: ConnectedIdentity }
  | { ok: false; error: CredentialsFailure };

/**
 * A platform whose accounts are connected by sending their credentials once (no consent page):
 * the service trades them for tokens and stores only the tokens. Implemented in the platform's
 * folder; POST /social-accounts takes its `fields`.
 */
export interface PlatformCredentials {
  readonly platform: Platform;
  readonly fields: readonly CredentialField[];
  /** Trades the fields (each present, a string) for the account's identity and tokens; never throws. */
  connect(
    fields: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<CredentialsOutcome>;
  /** Renews the tokens before they expire (the same pass as OAuth connections). */
  refresh?(input: RefreshInput, signal?: AbortSignal): Promise<RefreshOutcome>;
}
