/** Keys and credentials: the encryption keys, user JWTs, the bootstrap API key. */
import type { Env } from '../env-readers.ts';

export interface SecretsConfig {
  /** 32 bytes from ENCRYPTION_KEY (base64); null = generate/keep one in dataDir (embedded). */
  encryptionKey: Buffer | null;
  /**
   * ENCRYPTION_KEY_PREVIOUS: keys that still decrypt (comma-separated, base64) while a
   * rotation is under way; only `encryptionKey` encrypts. Empty = none.
   */
  encryptionKeysPrevious: Buffer[];
  /** AUTH_JWT_SECRET: HS256 tokens' secret, at least 32 bytes. */
  authJwtSecret: string | null;
  authJwksUrl: string | null;
  /** AUTH_JWT_ISSUER: when set, a token's `iss` must be exactly this. */
  authJwtIssuer: string | null;
  /** AUTH_JWT_AUDIENCE: when set, a token's `aud` must name this. */
  authJwtAudience: string | null;
  bootstrapApiKey: string | null;
}

export function readSecrets(e: Env): SecretsConfig {
  return {
    encryptionKey: readEncryptionKey(e),
    encryptionKeysPrevious: readPreviousEncryptionKeys(e),
    ...readJwt(e),
    bootstrapApiKey: readBootstrapKey(e),
  };
}

function readEncryptionKey(e: Env): Buffer | null {
  const text = e.string('ENCRYPTION_KEY');
  if (text === null) return null;
  const key = Buffer.from(text, 'base64');
  if (key.length === 32) return key;
  return e.report(
    'ENCRYPTION_KEY',
    'must be 32 bytes encoded as base64 (openssl rand -base64 32)',
    null,
  );
}

function readPreviousEncryptionKeys(e: Env): Buffer[] {
  const text = e.string('ENCRYPTION_KEY_PREVIOUS');
  if (text === null) return [];
  const keys = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => Buffer.from(part, 'base64'));
  if (keys.every((key) => key.length === 32)) return keys;
  return e.report(
    'ENCRYPTION_KEY_PREVIOUS',
    'must be keys of 32 bytes encoded as base64, separated by commas',
    [],
  );
}

function readBootstrapKey(e: Env): string | null {
  const key = e.string('BOOTSTRAP_API_KEY');
  if (key === null || /^sp_[0-9A-Za-z]{40}$/.test(key)) return key;
  return e.report('BOOTSTRAP_API_KEY', 'must be "sp_" followed by 40 letters or digits', null);
}

/** HS256's key is as strong as the secret: shorter than its 32-byte hash, it can be guessed. */
const MIN_JWT_SECRET_BYTES = 32;

/** How user JWTs are verified: the secret or key set, and the claims every token must carry. */
function readJwt(
  e: Env,
): Pick<SecretsConfig, 'authJwtSecret' | 'authJwksUrl' | 'authJwtIssuer' | 'authJwtAudience'> {
  let secret = e.string('AUTH_JWT_SECRET');
  const bytes = secret === null ? 0 : Buffer.byteLength(secret, 'utf8');
  if (secret !== null && bytes < MIN_JWT_SECRET_BYTES) {
    secret = e.report(
      'AUTH_JWT_SECRET',
      `must be at least ${MIN_JWT_SECRET_BYTES} bytes, got ${bytes} (openssl rand -base64 48)`,
      null,
    );
  }
  const jwksUrl = e.url('AUTH_JWKS_URL', ['https:', 'http:']);
  const issuer = e.string('AUTH_JWT_ISSUER');
  const audience = e.string('AUTH_JWT_AUDIENCE');
  const jwtOn = e.string('AUTH_JWT_SECRET') !== null || e.string('AUTH_JWKS_URL') !== null;
  for (const [name, value] of [
    ['AUTH_JWT_ISSUER', issuer],
    ['AUTH_JWT_AUDIENCE', audience],
  ] as const) {
    if (value !== null && !jwtOn)
      e.report(name, 'goes with AUTH_JWT_SECRET or AUTH_JWKS_URL', null);
  }
  return {
    authJwtSecret: secret,
    authJwksUrl: jwksUrl,
    authJwtIssuer: issuer,
    authJwtAudience: audience,
  };
}
