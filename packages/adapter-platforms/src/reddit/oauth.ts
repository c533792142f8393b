// Reddit OAuth 2.0 (github.com/reddit-archive/reddit/wiki/OAuth2): consent on
// www.reddit.com/api/v1/authorize with duration=permanent (a refresh token), the code exchange and
// the refresh on POST www.reddit.com/api/v1/access_token with HTTP Basic client authentication,
// the user from GET oauth.reddit.com/api/v1/me. Reddit does not document PKCE: the shared
// connector sends the challenge and the verifier anyway, which an authorization server ignores
// when it does not know them (RFC 6749 3.1, 3.2); our browser-binding cookie protects the flow.
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString } from '../shared/http.ts';
import { missingClientSettings } from '../shared/oauth.ts';
import { createOAuthConnector } from '../shared/oauth-connector.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { LABEL, redditTokenEndpoint } from './api.ts';
import { REDDIT_SETTINGS, type RedditSettings } from './settings.ts';

/** Who the user is, posting, reading the user's submissions back (the lookup), editing. */
export const REDDIT_SCOPES = ['identity', 'submit', 'read', 'edit'] as const;

/** What a Reddit connection keeps beside its tokens: the username its submissions are listed by. */
export const usernameOf = (data: Readonly<Record<string, unknown>> | null): string | undefined =>
  typeof data?.username === 'string' && data.username !== '' ? data.username : undefined;

export function createRedditOAuth(
  settings: RedditSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  /** GET /api/v1/me: the user's id and name. */
  async function me(accessToken: string, signal: AbortSignal) {
    const what = `${LABEL} account (me)`;
    const url = `${settings.apiBaseUrl}/api/v1/me`;
    const headers = { 'user-agent': settings.userAgent };
    const { ok, status, body } = await identityGet(
      runtime,
      url,
      accessToken,
      signal,
      what,
      headers,
    );
    const id = asString(body.id);
    const name = asString(body.name);
    if (ok && id && name) return { id, name };
    throw identityError(what, status, {
      code: asString(body.reason),
      message: asString(body.message) ?? (ok ? 'the answer names no user' : undefined),
      refused: status === 401,
    });
  }

  return createOAuthConnector({
    platform: 'reddit',
    label: LABEL,
    missingSettings: missingClientSettings(REDDIT_SETTINGS, settings),
    tokenEndpoint: redditTokenEndpoint(settings, runtime),
    consent: {
      url: `${settings.authBaseUrl}/api/v1/authorize`,
      params: {
        client_id: settings.clientId ?? '',
        // A permanent grant comes with a refresh token; a temporary one lasts an hour.
        duration: 'permanent',
        scope: REDDIT_SCOPES.join(' '),
      },
    },
    async identify({ tokens }, signal) {
      const user = await me(tokens.accessToken, signal);
      return [
        {
          externalId: user.id,
          displayName: `u/${user.name}`,
          tokens,
          platformData: { username: user.name },
        },
      ];
    },
  });
}
