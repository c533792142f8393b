import type { PublishRequest, RefreshedTokens } from '@social-publisher/domain';
import { connectionExpired, TokenRejected } from './outcome.ts';

/**
 * Exchanges a refresh token at the platform's token endpoint (built by `publisherRefresher` in
 * oauth.ts, the same request as the connector's proactive refresh). Throws `connectionExpired`
 * when the platform refuses the grant (invalid_grant & co.) and a retryable failure for network
 * errors or 5xx answers (the connection is not expired just because the token endpoint is down).
 * `refreshToken` null: the platform sent none, the stored one stays valid.
 */
export type TokenRefresher = (
  refreshToken: string,
  signal: AbortSignal,
) => Promise<RefreshedTokens>;

/** What a session needs of its run: the connection's tokens, where renewed ones are kept. */
export type TokenHolder = Pick<PublishRequest, 'connection' | 'signal' | 'saveTokens'>;

/**
 * The tokens of one publish run (or removal). `call` runs an API call with the current access token; when the
 * platform rejects the token (TokenRejected) it refreshes once per run, stores the new tokens
 * through `request.saveTokens` and retries the call once. Without a refresh token or refresher,
 * or when the refreshed token is rejected too, the run ends with `connection_expired`.
 */
export class AuthSession {
  accessToken: string;
  refreshToken: string | null;
  #refreshed = false;
  readonly #request: TokenHolder;
  readonly #refresher: TokenRefresher | null;
  readonly #platformLabel: string;

  constructor(request: TokenHolder, refresher: TokenRefresher | null, platformLabel: string) {
    this.#request = request;
    this.#refresher = refresher;
    this.#platformLabel = platformLabel;
    this.accessToken = request.connection.accessToken;
    this.refreshToken = request.connection.refreshToken;
  }

  async call<T>(body: (accessToken: string) => Promise<T>): Promise<T> {
    try {
      return await body(this.accessToken);
    } catch (error) {
      if (!(error instanceof TokenRejected)) throw error;
      if (this.#refreshed) throw this.#expired(error, 'the refreshed token was rejected too');
      if (this.refreshToken === null || this.refreshToken === '') {
        throw this.#expired(error, 'no refresh token is stored for this connection');
      }
      if (this.#refresher === null) {
        throw this.#expired(error, `${this.#platformLabel} tokens cannot be refreshed here`);
      }
      await this.#refresh(this.#refresher, this.refreshToken);
    }
    try {
      return await body(this.accessToken);
    } catch (error) {
      if (error instanceof TokenRejected) {
        throw this.#expired(error, 'the refreshed token was rejected too');
      }
      throw error;
    }
  }

  async #refresh(refresher: TokenRefresher, refreshToken: string): Promise<void> {
    this.#refreshed = true;
    const fresh = await refresher(refreshToken, this.#request.signal);
    const tokens: RefreshedTokens = {
      accessToken: fresh.accessToken,
      // Google usually answers without a new refresh token: the old one stays valid.
      refreshToken: fresh.refreshToken ?? refreshToken,
      expiresAt: fresh.expiresAt,
    };
    await this.#request.saveTokens(tokens);
    this.accessToken = tokens.accessToken;
    this.refreshToken = tokens.refreshToken;
  }

  #expired(error: TokenRejected, why: string) {
    return connectionExpired(`${this.#platformLabel} ${error.code}: ${error.message} (${why})`);
  }
}
