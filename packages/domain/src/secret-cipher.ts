import type { KeyObject } from 'node:crypto';
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  randomBytes,
} from 'node:crypto';
import type { TokenCipher } from './ports/index.ts';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 6;

/**
 * A stored secret that cannot be read: written with a key that is no longer configured,
 * tampered with, or copied from another row (its associated data names the row it was made
 * for). Callers turn it into a failed target or delivery; it never carries the secret.
 */
export class SecretUnreadableError extends Error {
  readonly boundTo: string;
  constructor(boundTo: string, reason: string) {
    super(`the stored secret of ${boundTo} cannot be decrypted: ${reason}`);
    this.name = 'SecretUnreadableError';
    this.boundTo = boundTo;
  }
}

/**
 * What each ciphertext is bound to (AES-GCM associated data): its table, column and row. A
 * ciphertext copied to another row, or to another column of the same row, does not decrypt.
 */
export const secretBinding = {
  accessToken: (connectionId: string) => `social_accounts.access_token:${connectionId}`,
  refreshToken: (connectionId: string) => `social_accounts.refresh_token:${connectionId}`,
  webhookSecret: (webhookId: string) => `webhooks.secret:${webhookId}`,
  codeVerifier: (stateId: string) => `oauth_states.code_verifier:${stateId}`,
  appSecret: (appId: string) => `platform_apps.client_secret:${appId}`,
};

/** Names a key inside ciphertexts without revealing it: a truncated hash under a fixed label. */
function keyIdOf(key: Buffer): string {
  return createHash('sha256')
    .update('social-publisher encryption key id\0')
    .update(key)
    .digest()
    .subarray(0, KEY_ID_BYTES)
    .toString('base64url');
}

interface Key {
  id: string;
  secret: KeyObject;
}

function keyOf(raw: Buffer, name: string): Key {
  if (raw.length !== 32)
    throw new Error(`AES-256-GCM needs a 32-byte ${name}, got ${raw.length} bytes`);
  // Built once: a KeyObject saves copying and validating the raw key on every call.
  return { id: keyIdOf(raw), secret: createSecretKey(Buffer.from(raw)) };
}

function open(key: KeyObject, nonce: Buffer, body: Buffer, tag: Buffer, aad: Buffer | null) {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

const decode = (part: string | undefined) => Buffer.from(part ?? '', 'base64url');

/**
 * AES-256-GCM for secrets at rest: `v2.<key id>.<nonce>.<ciphertext>.<tag>` (base64url), a
 * fresh random nonce per message, the row it belongs to as associated data, and the id of
 * the key that made it, so that keys can rotate: `previous` keys still decrypt, only the
 * current one encrypts.
 *
 * `v1.<nonce>.<ciphertext>.<tag>` (before rotation and binding existed) is still read, with
 * any configured key, until the rows are re-encrypted (`isCurrent` tells which to rewrite).
 */
export function createAesGcmCipher(
  key: Buffer,
  options: { previous?: Buffer[] } = {},
): TokenCipher {
  const current = keyOf(key, 'key');
  const keys = [current, ...(options.previous ?? []).map((raw) => keyOf(raw, 'previous key'))];
  const byId = new Map(keys.map((k) => [k.id, k]));

  function decryptV2(parts: string[], boundTo: string): string {
    const [, keyId, nonceText, bodyText, tagText] = parts;
    const nonce = decode(nonceText);
    const tag = decode(tagText);
    if (nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretUnreadableError(boundTo, 'malformed ciphertext');
    }
    const found = byId.get(keyId ?? '');
    if (!found) {
      throw new SecretUnreadableError(
        boundTo,
        'it was encrypted with a key that is neither the current nor a previous encryption key',
      );
    }
    try {
      return open(found.secret, nonce, decode(bodyText), tag, Buffer.from(boundTo, 'utf8'));
    } catch {
      throw new SecretUnreadableError(
        boundTo,
        'authentication failed (tampered with, or copied from another row)',
      );
    }
  }

  function decryptV1(parts: string[], boundTo: string): string {
    const [nonce, body, tag] = parts.slice(1).map(decode);
    if (nonce?.length !== NONCE_BYTES || tag?.length !== TAG_BYTES || !body) {
      throw new SecretUnreadableError(boundTo, 'malformed ciphertext');
    }
    // The old format names no key: each configured key is tried.
    for (const k of keys) {
      try {
        return open(k.secret, nonce, body, tag, null);
      } catch {}
    }
    throw new SecretUnreadableError(
      boundTo,
      'no configured encryption key opens it (the key that wrote it is not configured, or it was tampered with)',
    );
  }

  return {
    encrypt(plaintext: string, boundTo: string): string {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.secret, nonce, {
        authTagLength: TAG_BYTES,
      });
      cipher.setAAD(Buffer.from(boundTo, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `v2.${current.id}.${nonce.toString('base64url')}.${body.toString('base64url')}.${tag.toString('base64url')}`;
    },
    decrypt(ciphertext: string, boundTo: string): string {
      const parts = ciphertext.split('.');
      if (parts.length === 5 && parts[0] === 'v2') return decryptV2(parts, boundTo);
      if (parts.length === 4 && parts[0] === 'v1') return decryptV1(parts, boundTo);
      throw new SecretUnreadableError(boundTo, 'unrecognised ciphertext format');
    },
    isCurrent(ciphertext: string): boolean {
      return ciphertext.startsWith(`v2.${current.id}.`);
    },
  };
}

/**
 * Webhook rows written before their secrets were encrypted hold the `whsec_` secret itself;
 * they are read as they are until `pnpm cli secrets reencrypt` seals them.
 */
export const isPlaintextWebhookSecret = (stored: string): boolean => stored.startsWith('whsec_');

/** The signing secret of a webhook, from its stored (sealed, or legacy plaintext) form. */
export function openWebhookSecret(
  cipher: TokenCipher,
  webhook: { id: string; secretCiphertext: string },
): string {
  if (isPlaintextWebhookSecret(webhook.secretCiphertext)) return webhook.secretCiphertext;
  return cipher.decrypt(webhook.secretCiphertext, secretBinding.webhookSecret(webhook.id));
}
