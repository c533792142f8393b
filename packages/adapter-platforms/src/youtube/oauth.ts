// Google OAuth 2.0 for web server apps (developers.google.com/identity/protocols/oauth2/
// web-server) with PKCE; the connection is the user's YouTube channel (channels?mine=true).
import type { PlatformOAuth } from '@social-publisher/domain';
import { googleConsent, googleTokenEndpoint, requireGrantedScope } from '../google/oauth.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, isRecord } from '../shared/http.ts';
import { missingClientSettings, OAuthStepError } from '../shared/oauth.ts';
import { createOAuthConnector } from '../shared/oauth-connector.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import { YOUTUBE_SETTINGS, type YoutubeSettings } from './settings.ts';

const UPLOAD_SCOPE = 'https://www.googleapis.com/auth/youtube.upload';

/**
 * Deleting a video or a comment (videos.delete, comments.delete) and posting a comment
 * (commentThreads.insert) need youtube.force-ssl (or the broader youtube): upload does not.
 */
export const YOUTUBE_MANAGE_SCOPE = 'https://www.googleapis.com/auth/youtube.force-ssl';

/** Upload publishes, readonly reads the channel and the numbers, force-ssl comments and deletes. */
export const YOUTUBE_SCOPES = [
  UPLOAD_SCOPE,
  'https://www.googleapis.com/auth/youtube.readonly',
  YOUTUBE_MANAGE_SCOPE,
] as const;

const LABEL = 'YouTube';

export function createYoutubeOAuth(
  settings: YoutubeSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  /** GET /youtube/v3/channels?part=snippet&mine=true: the channel that will publish. */
  async function channel(accessToken: string, signal: AbortSignal) {
    const url = new URL(`${settings.apiBaseUrl}/youtube/v3/channels`);
    url.searchParams.set('part', 'snippet');
    url.searchParams.set('mine', 'true');
    const what = `${LABEL} channel`;
    const { ok, status, body } = await identityGet(runtime, url, accessToken, signal, what);
    if (ok) {
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
    throw identityError(what, status, { code: reason, message: asString(error.message) });
  }

  return createOAuthConnector({
    platform: 'youtube',
    label: LABEL,
    missingSettings: missingClientSettings(YOUTUBE_SETTINGS, settings),
    tokenEndpoint: googleTokenEndpoint(settings, runtime),
    consent: googleConsent(settings, YOUTUBE_SCOPES.join(' ')),
    async identify({ tokens }, signal) {
      // Without upload, every publish would fail later.
      requireGrantedScope(tokens, UPLOAD_SCOPE, LABEL, 'upload videos');
      const found = await channel(tokens.accessToken, signal);
      return [{ externalId: found.id, displayName: found.title, tokens }];
    },
  });
}
