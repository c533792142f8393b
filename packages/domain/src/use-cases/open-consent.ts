/**
 * GET /oauth/authorize/:platform?state=: the consent URL the API hands out. The first browser
 * to open it is bound to the flow (a nonce for its cookie, the nonce's hash stored with the
 * state) and sent on to the platform's consent page; the same browser may open it again (its
 * cookie matches); any other browser is refused, so a state seen by someone else is useless
 * to them.
 */
import type { CoreDeps } from '../deps.ts';
import type { Platform } from '../model.ts';
import { SecretUnreadableError, secretBinding } from '../secret-cipher.ts';
import {
  CONNECT_STATE_TTL_MS,
  type ConnectRefusal,
  callbackUrl,
  codeChallengeOf,
  connectorOf,
  hashState,
  refused,
} from './connect-account.ts';
import { browserHashOf, browserMatches, newBrowserNonce } from './connect-browser.ts';

export type ConsentOpening =
  | {
      ok: true;
      /** The platform's consent page for this flow. */
      platformUrl: string;
      /** What the browser's cookie must hold, until `expiresAt`. */
      browserNonce: string;
      expiresAt: Date;
    }
  | ConnectRefusal;

export async function openConsent(
  deps: CoreDeps,
  platform: Platform,
  state: string | undefined,
  browserNonce: string | undefined,
): Promise<ConsentOpening> {
  const fail = (code: string, message: string, back: string | null = null) =>
    refused(platform, code, message, back);
  if (!state) return fail('invalid_state', 'the consent link carries no state');
  const stateHash = hashState(state);
  const flow = await deps.repos.oauthStates.find(stateHash);
  if (!flow)
    return fail('invalid_state', 'unknown or already used state: start the connection again');
  if (flow.platform !== platform) {
    return fail('invalid_state', `this state was made for ${flow.platform}`);
  }
  const back = flow.returnUrl;
  if (flow.expiresAt.getTime() <= deps.clock.now().getTime()) {
    return fail(
      'state_expired',
      `the connection was not completed within ${CONNECT_STATE_TTL_MS / 60_000} minutes: start it again`,
      back,
    );
  }
  const connector = connectorOf(deps, platform);
  if ('code' in connector) return fail(connector.code, connector.message, back);

  let nonce: string;
  if (flow.browserHash === null) {
    nonce = newBrowserNonce();
    if (!(await deps.repos.oauthStates.bindBrowser(stateHash, browserHashOf(nonce)))) {
      return fail('browser_mismatch', 'this connection was opened in another browser');
    }
  } else if (browserNonce !== undefined && browserMatches(flow, browserNonce)) {
    nonce = browserNonce; // the same browser, opening the link again
  } else {
    return fail('browser_mismatch', 'this connection was opened in another browser');
  }
  let codeVerifier: string;
  try {
    codeVerifier = deps.cipher.decrypt(
      flow.codeVerifierCiphertext,
      secretBinding.codeVerifier(flow.id),
    );
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    const message =
      'this connect flow can no longer be read (the encryption key changed); start it again';
    return fail('invalid_state', message, back);
  }
  const platformUrl = connector.authorizationUrl({
    state,
    redirectUri: callbackUrl(deps, platform),
    codeChallenge: codeChallengeOf(codeVerifier),
    ...(flow.connectParams ? { params: flow.connectParams } : {}),
  });
  return { ok: true, platformUrl, browserNonce: nonce, expiresAt: flow.expiresAt };
}
