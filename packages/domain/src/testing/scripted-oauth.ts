import type { Platform } from '../model.ts';
import type {
  AuthorizationRequest,
  CodeExchange,
  ConnectOutcome,
  PlatformOAuth,
  RefreshInput,
  RefreshOutcome,
} from '../ports/index.ts';

/**
 * A platform's OAuth for tests: the consent URL echoes its inputs, `connect` and `refresh`
 * answer from scripts (default: one identity; refreshed tokens valid an hour). Every call is
 * recorded.
 */
export class ScriptedOAuth implements PlatformOAuth {
  readonly platform: Platform;
  missingSettings: string[] = [];
  readonly exchanges: CodeExchange[] = [];
  readonly refreshes: RefreshInput[] = [];
  #connect: (exchange: CodeExchange) => ConnectOutcome | Promise<ConnectOutcome>;
  #refresh: ((input: RefreshInput) => RefreshOutcome | Promise<RefreshOutcome>) | undefined;

  constructor(platform: Platform) {
    this.platform = platform;
    this.#connect = () => ({
      ok: true,
      identities: [
        {
          externalId: `${platform}-id`,
          displayName: `@${platform}`,
          tokens: {
            accessToken: `access-${platform}`,
            refreshToken: `refresh-${platform}`,
            expiresAt: null,
            scopes: ['publish'],
          },
        },
      ],
    });
  }

  authorizationUrl(request: AuthorizationRequest): string {
    const url = new URL(`https://consent.example/${this.platform}`);
    url.searchParams.set('state', request.state);
    url.searchParams.set('redirect_uri', request.redirectUri);
    url.searchParams.set('code_challenge', request.codeChallenge);
    return url.toString();
  }

  /** What the next connects answer. */
  connectWith(answer: (exchange: CodeExchange) => ConnectOutcome | Promise<ConnectOutcome>): this {
    this.#connect = answer;
    return this;
  }

  /** Makes the platform renew tokens, answering with `answer`. */
  refreshWith(answer: (input: RefreshInput) => RefreshOutcome | Promise<RefreshOutcome>): this {
    this.#refresh = answer;
    this.refresh = async (input: RefreshInput) => {
      this.refreshes.push(input);
      return (this.#refresh as (input: RefreshInput) => RefreshOutcome | Promise<RefreshOutcome>)(
        input,
      );
    };
    return this;
  }

  refresh?: (input: RefreshInput) => Promise<RefreshOutcome>;

  async connect(exchange: CodeExchange): Promise<ConnectOutcome> {
    this.exchanges.push(exchange);
    return this.#connect(exchange);
  }
}
