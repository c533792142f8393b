/**
 * Optional user JWTs (AUTH_JWT_SECRET: HS256; AUTH_JWKS_URL: asymmetric keys from a JWKS).
 * A verified token yields its `sub`; every failure is a 401, except an unreachable JWKS (503).
 * Every token must expire (`exp`): one without would be a credential for ever. With
 * AUTH_JWT_ISSUER / AUTH_JWT_AUDIENCE set, `iss` / `aud` must match, so a token the same
 * identity provider issued for another application is refused.
 */
import type { Config } from '@social-publisher/config';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  type JWTPayload,
  type JWTVerifyOptions,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { HttpError, unauthorizedError } from '../errors.ts';

export type JwtVerifier = (token: string) => Promise<string>;

const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const MAX_SUBJECT_LENGTH = 255;

/** Three base64url segments: worth handing to the verifier. */
export const looksLikeJwt = (token: string): boolean =>
  /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

function subjectOf(payload: JWTPayload): string {
  const { sub } = payload;
  if (typeof sub !== 'string' || sub === '' || sub.length > MAX_SUBJECT_LENGTH) {
    throw unauthorizedError('the token has no usable sub claim');
  }
  return sub;
}

/** What a 401 says about a claim the token lacks or that does not match. */
const CLAIM_REFUSALS: Record<string, { missing: string; wrong: string }> = {
  exp: {
    missing: 'the token has no exp claim: tokens must expire',
    wrong: 'the token has an invalid exp claim',
  },
  iss: { missing: 'the token has no iss claim', wrong: 'the token is from another issuer' },
  aud: { missing: 'the token has no aud claim', wrong: 'the token is for another audience' },
};

function toAuthError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof joseErrors.JWKSTimeout) {
    return new HttpError(
      503,
      'auth_unavailable',
      'the key set for verifying tokens is unreachable',
    );
  }
  if (error instanceof joseErrors.JWTExpired) return unauthorizedError('the token has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    const why = CLAIM_REFUSALS[error.claim];
    if (why) return unauthorizedError(error.reason === 'missing' ? why.missing : why.wrong);
  }
  if (error instanceof joseErrors.JOSEError) return unauthorizedError('the token is not valid');
  // Not a verdict on the token: fetching the key set failed (network, bad JSON from the host).
  return new HttpError(503, 'auth_unavailable', 'the key set for verifying tokens is unreachable');
}

export function createJwtVerifier(
  config: Pick<Config, 'authJwtSecret' | 'authJwksUrl' | 'authJwtIssuer' | 'authJwtAudience'>,
): JwtVerifier | null {
  const claims: JWTVerifyOptions = {
    requiredClaims: ['exp'],
    ...(config.authJwtIssuer ? { issuer: config.authJwtIssuer } : {}),
    ...(config.authJwtAudience ? { audience: config.authJwtAudience } : {}),
  };
  const secret = config.authJwtSecret ? new TextEncoder().encode(config.authJwtSecret) : null;
  const jwks = config.authJwksUrl
    ? createRemoteJWKSet(new URL(config.authJwksUrl), { timeoutDuration: 5_000 })
    : null;
  if (!secret && !jwks) return null;
  return async (token) => {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw unauthorizedError('the token is not valid');
    }
    try {
      if (alg === 'HS256' && secret) {
        return subjectOf(
          (await jwtVerify(token, secret, { ...claims, algorithms: ['HS256'] })).payload,
        );
      }
      if (alg !== undefined && ASYMMETRIC_ALGORITHMS.includes(alg) && jwks) {
        return subjectOf(
          (await jwtVerify(token, jwks, { ...claims, algorithms: ASYMMETRIC_ALGORITHMS })).payload,
        );
      }
    } catch (error) {
      throw toAuthError(error);
    }
    throw unauthorizedError('the token is not valid');
  };
}
