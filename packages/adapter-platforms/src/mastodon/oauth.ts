// Mastodon OAuth (docs.joinmastodon.org/spec/oauth, /methods/apps): every instance is its own
// provider. The first connect to an instance registers our app there (POST /api/v1/apps) and
// keeps its client id and secret (RegisteredApps: per instance, the secret encrypted); later
// connects reuse it. Then a standard code flow with PKCE S256 on the instance
// (/oauth/authorize, /oauth/token), the account from /api/v1/accounts/verify_credentials and
// the instance's status length from /api/v2/instance. Mastodon tokens do not expire: no refresh.
import {
  errorMessage,
  type PlatformOAuth,
  type RegisteredApp,
  type RegisteredApps,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall, asString, excerpt, isRecord } from '../shared/http.ts';
import {
  authorizationUrl,
  OAuthStepError,
  oauthGet,
  runConnect,
  standardTokenRequest,
} from '../shared/oauth.ts';
import { identityError, identityGet } from '../shared/oauth-identity.ts';
import {
  connectionData,
  DEFAULT_MAX_CHARACTERS,
  instanceRuntime,
  normaliseInstance,
} from './instance.ts';
import type { MastodonSettings } from './settings.ts';

/** What publishing needs, no more: who the account is, posting statuses, uploading media. */
export const MASTODON_SCOPES = 'read:accounts write:statuses write:media';

const LABEL = 'Mastodon';

/** The connect fields Mastodon takes: the instance (any server, given by the user). */
export const MASTODON_CONNECT_FIELDS = {
  properties: {
    instance: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        'mastodon: the URL of the instance the account lives on, e.g. https://mastodon.social (https only; its origin is kept)',
    },
  },
  required: ['instance'],
} as const;

export function createMastodonOAuth(
  settings: MastodonSettings,
  baseRuntime: PublisherRuntime,
): PlatformOAuth {
  const runtime = instanceRuntime(baseRuntime);
  /** Registrations under way in this process, by instance: concurrent connects share one. */
  const registering = new Map<string, Promise<RegisteredApp>>();

  /** POST /api/v1/apps on the instance: our app's client id and secret there. */
  async function register(instance: string, redirectUri: string, signal: AbortSignal) {
    const response = await apiCall(
      runtime,
      signal,
      {
        url: `${instance}/api/v1/apps`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_name: settings.clientName,
          redirect_uris: redirectUri,
          scopes: MASTODON_SCOPES,
          ...(settings.website ? { website: settings.website } : {}),
        }),
      },
      `${LABEL} app registration`,
    );
    const body = isRecord(response.json) ? response.json : {};
    const clientId = asString(body.client_id);
    const clientSecret = asString(body.client_secret);
    if (response.status >= 200 && response.status < 300 && clientId && clientSecret) {
      return { clientId, clientSecret };
    }
    const said = asString(body.error) ?? (excerpt(response.text) || 'no Mastodon answer');
    throw new Error(`the instance refused the app registration (HTTP ${response.status}): ${said}`);
  }

  /** The app on `instance`: kept from an earlier connect, or registered now (once). */
  async function appOn(
    instance: string,
    redirectUri: string,
    apps: RegisteredApps,
    signal: AbortSignal,
  ): Promise<RegisteredApp> {
    const known = await apps.find(instance);
    if (known) return known;
    let pending = registering.get(instance);
    if (!pending) {
      pending = register(instance, redirectUri, signal).then((app) => apps.keep(instance, app));
      registering.set(instance, pending);
      const forget = () => registering.delete(instance);
      pending.then(forget, forget);
    }
    return pending;
  }

  /** GET /api/v2/instance: the instance's status length (500 when it does not say). */
  async function maxCharacters(instance: string, signal: AbortSignal): Promise<number> {
    const response = await oauthGet(
      runtime,
      `${instance}/api/v2/instance`,
      signal,
      `${LABEL} instance`,
    );
    const body = isRecord(response.json) ? response.json : {};
    const configuration = isRecord(body.configuration) ? body.configuration : {};
    const statuses = isRecord(configuration.statuses) ? configuration.statuses : {};
    const max = statuses.max_characters;
    return typeof max === 'number' && Number.isSafeInteger(max) && max > 0
      ? max
      : DEFAULT_MAX_CHARACTERS;
  }

  return {
    platform: 'mastodon',
    // Nothing to configure: the app is registered on each instance.
    missingSettings: [],

    async prepare({ fields, redirectUri, apps }, signal) {
      const checked = normaliseInstance(fields.instance, baseRuntime);
      if (!checked.ok)
        return { ok: false, problems: [{ field: 'instance', message: checked.message }] };
      const instance = checked.origin;
      const deadline = AbortSignal.timeout(runtime.requestTimeoutMs);
      try {
        const app = await appOn(
          instance,
          redirectUri,
          apps,
          signal ? AbortSignal.any([signal, deadline]) : deadline,
        );
        return { ok: true, params: { instance, client_id: app.clientId } };
      } catch (error) {
        const message = `could not register this service's app on ${instance}: ${errorMessage(error)}`;
        return { ok: false, problems: [{ field: 'instance', message }] };
      }
    },

    authorizationUrl(request) {
      const instance = asString(request.params?.instance);
      const clientId = asString(request.params?.client_id);
      if (!instance || !clientId) throw new Error('a Mastodon flow without its instance');
      return authorizationUrl(`${instance}/oauth/authorize`, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: request.redirectUri,
        scope: MASTODON_SCOPES,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
      });
    },

    connect(exchange, signal) {
      return runConnect(LABEL, [exchange.code], signal, async (active, secrets) => {
        const instance = asString(exchange.params?.instance);
        if (!instance || !exchange.apps) {
          throw new OAuthStepError(
            'invalid_state',
            `${LABEL}: this flow names no instance`,
            'error',
          );
        }
        const app = await exchange.apps.find(instance);
        if (!app) {
          const message = `${LABEL}: no app is registered on ${instance}: start the connection again`;
          throw new OAuthStepError('app_not_registered', message, 'error');
        }
        secrets.push(app.clientSecret);
        const { tokens } = await standardTokenRequest(
          runtime,
          `${instance}/oauth/token`,
          {
            grant_type: 'authorization_code',
            code: exchange.code,
            redirect_uri: exchange.redirectUri,
            code_verifier: exchange.codeVerifier,
            client_id: app.clientId,
            client_secret: app.clientSecret,
            scope: MASTODON_SCOPES,
          },
          active,
          `${LABEL} code exchange`,
        );
        secrets.push(tokens.accessToken);
        const what = `${LABEL} identity`;
        const me = await identityGet(
          runtime,
          `${instance}/api/v1/accounts/verify_credentials`,
          tokens.accessToken,
          active,
          what,
        );
        const id = asString(me.body.id);
        if (!me.ok || !id) {
          throw identityError(what, me.status, {
            code: me.status === 401 ? 'invalid_token' : undefined,
            message: asString(me.body.error),
            refused: me.status === 401,
          });
        }
        const host = new URL(instance).host;
        const username = asString(me.body.username) ?? id;
        return [
          {
            // Account ids are per instance: the host makes them unique across instances.
            externalId: `${id}@${host}`,
            displayName: `@${username}@${host}`,
            // Mastodon tokens do not expire; the scopes granted are the ones asked for.
            tokens: { ...tokens, refreshToken: null, expiresAt: null },
            platformData: connectionData({
              instance,
              maxCharacters: await maxCharacters(instance, active),
            }),
          },
        ];
      });
    },
  };
}
