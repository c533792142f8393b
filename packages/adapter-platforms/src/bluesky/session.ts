// Bluesky sessions (com.atproto.server.createSession / refreshSession): an app password is
// traded once for an access JWT (about two hours) and a refresh JWT (rotated on each refresh).
// Only the JWTs are stored; the app password is never kept and never put in a message.

import type {
  CredentialsOutcome,
  GrantedTokens,
  PlatformCredentials,
  RefreshedTokens,
  RefreshOutcome,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { TokenRefresher } from '../shared/auth.ts';
import { asString, isRecord, isTransientStatus } from '../shared/http.ts';
import { connectionExpired, fail, PublishFailure } from '../shared/outcome.ts';
import type { BlueskySettings } from './settings.ts';
import { XrpcAnswerError, xrpc } from './xrpc.ts';

/** A session as createSession and refreshSession answer it. */
export interface BlueskySession {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
}

/** When a JWT expires (its `exp` claim), null when it cannot be read. */
export function jwtExpiry(jwt: string): Date | null {
  const payload = jwt.split('.')[1];
  if (payload === undefined) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    const exp = isRecord(claims) ? claims.exp : undefined;
    return typeof exp === 'number' && Number.isFinite(exp) ? new Date(exp * 1000) : null;
  } catch {
    return null;
  }
}

function sessionOf(json: unknown): BlueskySession | null {
  if (!isRecord(json)) return null;
  const did = asString(json.did);
  const handle = asString(json.handle);
  const accessJwt = asString(json.accessJwt);
  const refreshJwt = asString(json.refreshJwt);
  if (!did || !handle || !accessJwt || !refreshJwt) return null;
  return { did, handle, accessJwt, refreshJwt };
}

const tokensOf = (session: BlueskySession): GrantedTokens => ({
  accessToken: session.accessJwt,
  refreshToken: session.refreshJwt,
  expiresAt: jwtExpiry(session.accessJwt),
  scopes: [],
});

/** `@alice.bsky.social` and `alice.bsky.social` are the same handle. */
const identifierOf = (handle: string): string => handle.trim().replace(/^@/, '');

/** A refresh JWT that is expired, revoked or unknown: the account must be connected again. */
const refreshRefused = (error: XrpcAnswerError): boolean => !isTransientStatus(error.answer.status);

export function createBlueskySessions(settings: BlueskySettings, runtime: PublisherRuntime) {
  const base = settings.serviceUrl;

  /** POST createSession; throws XrpcAnswerError or a transport PublishFailure. */
  async function createSession(handle: string, password: string, signal: AbortSignal) {
    const response = await xrpc(base, runtime, signal, {
      nsid: 'com.atproto.server.createSession',
      method: 'POST',
      json: { identifier: identifierOf(handle), password },
    });
    const session = sessionOf(response.json);
    if (!session) throw fail('invalid_response', 'Bluesky createSession gave no session', true);
    return session;
  }

  /** POST refreshSession with the refresh JWT as the bearer token. */
  async function refreshSession(refreshJwt: string, signal: AbortSignal) {
    const response = await xrpc(base, runtime, signal, {
      nsid: 'com.atproto.server.refreshSession',
      method: 'POST',
      token: refreshJwt,
    });
    const session = sessionOf(response.json);
    if (!session) throw fail('invalid_response', 'Bluesky refreshSession gave no session', true);
    return session;
  }

  return { createSession, refreshSession };
}

/** A connect or refresh step gives up past this, whatever the per-request timeouts. */
const STEP_DEADLINE_MS = 60_000;

const stepSignal = (signal: AbortSignal | undefined) =>
  signal
    ? AbortSignal.any([signal, AbortSignal.timeout(STEP_DEADLINE_MS)])
    : AbortSignal.timeout(STEP_DEADLINE_MS);

/** The connector POST /social-accounts uses: `handle` and `app_password`, never throws. */
export function createBlueskyCredentials(
  settings: BlueskySettings,
  runtime: PublisherRuntime,
): PlatformCredentials {
  const sessions = createBlueskySessions(settings, runtime);
  return {
    platform: 'bluesky',
    fields: [
      {
        name: 'handle',
        description: 'the handle (alice.bsky.social) or the email address of the account',
        maxLength: 253,
        secret: false,
      },
      {
        name: 'app_password',
        description:
          'an app password made for this service in Bluesky Settings > Privacy and security > App passwords (not the account password)',
        maxLength: 200,
        secret: true,
      },
    ],
    async connect(fields, signal): Promise<CredentialsOutcome> {
      try {
        const session = await sessions.createSession(
          fields.handle ?? '',
          fields.app_password ?? '',
          stepSignal(signal),
        );
        return {
          ok: true,
          identity: {
            externalId: session.did,
            displayName: session.handle,
            tokens: tokensOf(session),
          },
        };
      } catch (error) {
        if (error instanceof XrpcAnswerError) {
          const { status, error: code, message } = error.answer;
          return { ok: false, error: { code, message, transient: isTransientStatus(status) } };
        }
        return { ok: false, error: { ...stepFailure(error), transient: true } };
      }
    },
    async refresh(input, signal): Promise<RefreshOutcome> {
      if (!input.refreshToken) return { kind: 'refused', reason: 'no refresh JWT is stored' };
      try {
        const session = await sessions.refreshSession(input.refreshToken, stepSignal(signal));
        return { kind: 'refreshed', tokens: tokensOf(session) };
      } catch (error) {
        if (error instanceof XrpcAnswerError) {
          const reason = `Bluesky refreshSession: ${error.message}`;
          return refreshRefused(error) ? { kind: 'refused', reason } : { kind: 'failed', reason };
        }
        return { kind: 'failed', reason: stepFailure(error).message };
      }
    },
  };
}

function stepFailure(error: unknown): { code: string; message: string } {
  if (error instanceof PublishFailure && error.outcome.kind === 'failed') {
    return { code: error.outcome.code, message: error.outcome.message };
  }
  return { code: 'network_error', message: error instanceof Error ? error.message : String(error) };
}

/**
 * The publisher's renewal when Bluesky rejects the access JWT mid-publish: the same
 * refreshSession. A refusal ends the run `connection_expired`; an outage is retried later.
 */
export function blueskyRefresher(
  settings: BlueskySettings,
  runtime: PublisherRuntime,
): TokenRefresher {
  const sessions = createBlueskySessions(settings, runtime);
  return async (refreshToken, signal): Promise<RefreshedTokens> => {
    try {
      const session = await sessions.refreshSession(refreshToken, signal);
      return {
        accessToken: session.accessJwt,
        refreshToken: session.refreshJwt,
        expiresAt: jwtExpiry(session.accessJwt),
      };
    } catch (error) {
      if (!(error instanceof XrpcAnswerError)) throw error;
      const message = `Bluesky refreshSession: ${error.message}`;
      if (refreshRefused(error)) throw connectionExpired(message);
      throw fail(error.answer.error, message, true);
    }
  };
}
