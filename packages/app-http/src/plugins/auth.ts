/**
 * Credentials: `Authorization: Bearer <credential>` or `X-API-Key: <key>`. The credential is
 * an API key (`sp_...`) or, when configured, a user JWT whose `sub` is the user.
 */
import {
  type Actor,
  authenticateApiKey,
  authenticateSubject,
  type CoreDeps,
} from '@social-publisher/domain';
import type { FastifyRequest } from 'fastify';
import { fromDomainError, unauthorizedError } from '../errors.ts';
import { type JwtVerifier, looksLikeJwt } from './jwt.ts';

/** Longer than any key or sane token: rejected without work. */
const MAX_CREDENTIAL_LENGTH = 8_192;

export interface Authenticator {
  /** The caller, or throws the HttpError to answer with (401; 503 if a JWKS is unreachable). */
  authenticate(request: FastifyRequest): Promise<Actor>;
}

/** The credential a request carries, or null. A non-Bearer Authorization scheme is an error. */
export function credentialOf(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match?.[1]) {
      throw unauthorizedError('use "Authorization: Bearer <API key or token>"');
    }
    return match[1];
  }
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return null;
}

export function createAuthenticator(deps: CoreDeps, verifyJwt: JwtVerifier | null): Authenticator {
  return {
    async authenticate(request) {
      const credential = credentialOf(request);
      if (credential === null) {
        throw unauthorizedError(
          'missing credential: send "Authorization: Bearer <API key>" or "X-API-Key: <API key>"',
        );
      }
      if (credential.length > MAX_CREDENTIAL_LENGTH) throw unauthorizedError();
      if (credential.startsWith('sp_')) {
        const result = await authenticateApiKey(deps, credential);
        if (!result.ok) throw fromDomainError(result.error);
        return result.value;
      }
      if (verifyJwt && looksLikeJwt(credential)) {
        const subject = await verifyJwt(credential);
        return authenticateSubject(deps, subject);
      }
      throw unauthorizedError();
    },
  };
}

/** What rate limiting counts a caller by: the API key, or the user behind a JWT. */
export const credentialKeyOf = (actor: Actor): string =>
  actor.apiKeyId ? `key:${actor.apiKeyId}` : `user:${actor.userId}`;
