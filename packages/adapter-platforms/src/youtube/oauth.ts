// Google OAuth 2.0 for web server apps (developers.google.com/identity/protocols/oauth2/
// web-server) with PKCE; the connection is the user's YouTube channel (channels?mine=true).
import type { PlatformOAuth } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  missingClientSettings,
  notConfigured,
  OAuthStepError,
  oauthGet,
  oauthRefresh,
  runConnect,
} from '../shared/oauth.ts';
import { googleTokenEndpoint, youtubeRenewal } from './api.ts';
import { YOUTUBE_SETTINGS, type YoutubeSettings } from './settings.ts';

const UPLOAD_SCOPE = 'https://www.googleapis.com/auth/youtube.upload';

export const YOUTUBE_SCOPES = [
  UPLOAD_SCOPE,
  'https://www.googleapis.com/auth/youtube.readonly',
] as const;

const LABEL = 'YouTube';

export function createYoutubeOAuth(
  settings: YoutubeSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const missing = missingClientSettings(YOUTUBE_SETTINGS, settings);
  const tokenEndpoint = googleTokenEndpoint(settings, runtime);

  /** GET /youtube/v3/channels?part=snippet&mine=true: the channel that will publish. */
  async function channel(accessToken: string, signal: AbortSignal) {
    const url = new URL(`${settings.apiBaseUrl}/youtube/v3/channels`);
    url.searchParams.set('part', 'snippet');
    url.searchParams.set('mine', 'true');
    const response = await oauthGet(runtime, url, signal, `${LABEL} channel`, {
      authorization: `Bearer ${accessToken}`,
    });
    const body = isRecord(response.json) ? response.json : {};
    if (response.status >= 200 && response.status < 300) {
      const items = Array.isArray(body.items) ? body.items.filter(isRecord) : [];
      const first = items[0];
      const id = first ? asString(first.id) : undefined;
      if (!first || !id) {
        throw new OAuthStepError(
          'no_channel',
          `${LABEL}: this Google account has no YouTube channel; create one, then connect again`,
          'error',
        );
      }
      const snippet = isRecord(first.snippet) ? first.snippet : {};
      return { id, title: asString(snippet.title) ?? null };
    }
    const error = isRecord(body.error) ? body.error : {};
    const reason =
      Array.isArray(error.errors) && isRecord(error.errors[0])
        ? asString(error.errors[0].reason)
        : undefined;
    const code = reason ?? `http_${response.status}`;
    throw new OAuthStepError(
      code,
      `${LABEL} channel: ${asString(error.message) ?? code}`,
      response.status >= 500 || response.status === 429 ? 'failed' : 'error',
    );
  }

  return {
    platform: 'youtube',
    missingSettings: missing,

    authorizationUrl(request) {
      return authorizationUrl(`${settings.authBaseUrl}/o/oauth2/v2/auth`, {
        client_id: settings.clientId ?? '',
        redirect_uri: request.redirectUri,
        response_type: 'code',
        scope: YOUTUBE_SCOPES.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange, signal) {
      if (!tokenEndpoint) return Promise.resolve(notConfigured(LABEL, missing));
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const { tokens } = await tokenEndpoint(
          {
            code: exchange.code,
            redirect_uri: exchange.redirectUri,
            grant_type: 'authorization_code',
            code_verifier: exchange.codeVerifier,
          },
          active,
          `${LABEL} code exchange`,
        );
        secrets.push(tokens.accessToken, tokens.refreshToken ?? '');
        // Google's granular consent lets the user untick a scope: without upload, every
        // publish would fail later, so the connect fails now and says why.
        if (tokens.scopes.length > 0 && !tokens.scopes.includes(UPLOAD_SCOPE)) {
          throw new OAuthStepError(
            'scope_not_granted',
            `${LABEL}: the permission to upload videos was not granted; connect again and allow it`,
            'error',
          );
        }
        const found = await channel(tokens.accessToken, active);
        return [{ externalId: found.id, displayName: found.title, tokens }];
      });
    },

    refresh: oauthRefresh(LABEL, youtubeRenewal(settings, runtime)),
  };
}
