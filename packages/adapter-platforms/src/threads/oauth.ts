// Threads API OAuth (developers.facebook.com "Threads API: Get Access Tokens and Permissions",
// "Long-Lived Access Tokens"): the consent page on threads.net, the code exchange
// (POST /oauth/access_token), the long-lived exchange (th_exchange_token) and the refresh
// (th_refresh_token) on graph.threads.net's unversioned token paths, identity on /v1.0/me.
// Every refusal is a Graph error object. PKCE S256 goes along as with Instagram: unconfirmed in
// Meta's Threads reference; if Threads ignores it, the API's browser cookie still binds the flow.
import type { PlatformOAuth } from '@social-publisher/domain';
import { graphStepError, graphUrl, versionedGraphBase } from '../meta/graph-api.ts';
import { type MetaToken, metaOAuth, rawId } from '../meta/oauth.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { asString, type HttpResult, isRecord } from '../shared/http.ts';
import { OAuthStepError, oauthGet } from '../shared/oauth.ts';
import { THREADS_API_VERSION } from './api.ts';
import { THREADS_SETTINGS, type ThreadsSettings } from './settings.ts';

/** The permission to read a post's insights (its numbers). */
export const THREADS_INSIGHTS_SCOPE = 'threads_manage_insights';

/** The permission to delete the profile's own posts and replies (unpublish). */
export const THREADS_DELETE_SCOPE = 'threads_delete';

/**
 * Publishing needs the first two; replies (a `thread`, a first comment) need
 * threads_manage_replies, looking up a reply whose answer was lost threads_read_replies,
 * reading a post's numbers threads_manage_insights, and deleting it threads_delete.
 */
export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  'threads_read_replies',
  THREADS_INSIGHTS_SCOPE,
  THREADS_DELETE_SCOPE,
] as const;

const LABEL = 'Threads';

export function createThreadsOAuth(
  settings: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformOAuth {
  const versionedApi = versionedGraphBase(settings.apiBaseUrl, THREADS_API_VERSION);

  /** GET /v1.0/me?fields=id,username,name: the Threads profile. */
  async function identify(accessToken: string, signal: AbortSignal) {
    const what = `${LABEL} identity`;
    const url = graphUrl(versionedApi, '/me', {
      fields: 'id,username,name',
      access_token: accessToken,
    });
    const response = await oauthGet(runtime, url, signal, what);
    const body = answerOf(response, what);
    // The id is an int64: read its digits from the text (a JSON number would lose them).
    const id = rawId(response.text, 'id') ?? asString(body.id);
    if (!id) throw new OAuthStepError('invalid_response', `${what}: no id`, 'failed');
    const username = asString(body.username);
    return {
      externalId: id,
      displayName: username ? `@${username}` : (asString(body.name) ?? null),
    };
  }

  // All three token calls on the token host. The exchange does not say what was granted: the
  // token carries what the consent asked for.
  return metaOAuth(runtime, settings, {
    platform: 'threads',
    label: LABEL,
    settingsSpec: THREADS_SETTINGS,
    exchangeOn: 'token',
    grantTypes: { exchange: 'th_exchange_token', refresh: 'th_refresh_token' },
    scopes: THREADS_SCOPES,
    codeAnswer: tokenOf,
    tokenAnswer: tokenOf,
    identify,
  });
}

/** A 2xx answer as a JSON object, else the Graph refusal as the step error. */
function answerOf(response: HttpResult, what: string) {
  const body = isRecord(response.json) ? response.json : undefined;
  if (response.status >= 200 && response.status < 300 && body && !isRecord(body.error)) {
    return body;
  }
  throw graphStepError(response.status, body, what);
}

/** An answer `{ access_token, token_type?, expires_in? }` (the code exchange adds `user_id`). */
function tokenOf(response: HttpResult, what: string): MetaToken {
  const body = answerOf(response, what);
  const accessToken = asString(body.access_token);
  if (!accessToken) {
    throw new OAuthStepError('invalid_response', `${what}: no access_token`, 'failed');
  }
  const expiresIn = Number(body.expires_in);
  return { accessToken, expiresIn: Number.isFinite(expiresIn) ? expiresIn : null, scopes: [] };
}
