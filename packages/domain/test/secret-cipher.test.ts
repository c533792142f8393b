import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createAesGcmCipher,
  openWebhookSecret,
  SecretUnreadableError,
  secretBinding,
} from '../src/index.ts';

/** The format written before keys rotated and ciphertexts were bound to rows. */
function legacyV1(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', nonce, body, cipher.getAuthTag()].map((p) => p.toString('base64url')).join('.');
}

const ROW = secretBinding.accessToken('0190a0b0-0000-7000-8000-000000000001');
const OTHER_ROW = secretBinding.accessToken('0190a0b0-0000-7000-8000-000000000002');

describe('AES-256-GCM secret cipher', () => {
  const key = randomBytes(32);
  const cipher = createAesGcmCipher(key);

  it('round-trips, with a fresh nonce every time and the key named', () => {
    for (const plaintext of ['token', '', 'ünïcødé 😀', 'x'.repeat(5000)]) {
      const sealed = cipher.encrypt(plaintext, ROW);
      expect(sealed).toMatch(
        /^v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/,
      );
      expect(cipher.decrypt(sealed, ROW)).toBe(plaintext);
      expect(cipher.isCurrent(sealed)).toBe(true);
    }
    expect(cipher.encrypt('same', ROW)).not.toBe(cipher.encrypt('same', ROW));
  });

  it('binds each ciphertext to its row and column: copied elsewhere, it does not decrypt', () => {
    const sealed = cipher.encrypt('secret token', ROW);
    expect(() => cipher.decrypt(sealed, OTHER_ROW)).toThrow(SecretUnreadableError);
    expect(() => cipher.decrypt(sealed, OTHER_ROW)).toThrow(/copied from another row/);
    const id = '0190a0b0-0000-7000-8000-000000000001';
    expect(() => cipher.decrypt(sealed, secretBinding.refreshToken(id))).toThrow(
      SecretUnreadableError,
    );
    expect(() => cipher.decrypt(sealed, secretBinding.webhookSecret(id))).toThrow(
      SecretUnreadableError,
    );
  });

  it('refuses tampered, malformed or foreign ciphertexts with a clear error', () => {
    const sealed = cipher.encrypt('secret token', ROW);
    const [v, kid, nonce, body, tag] = sealed.split('.');
    const flip = (part = '') => `${part[0] === 'A' ? 'B' : 'A'}${part.slice(1)}`;
    const parts = (...p: Array<string | undefined>) => p.join('.');
    expect(() => cipher.decrypt(parts(v, kid, nonce, flip(body), tag), ROW)).toThrow(
      /authentication failed/,
    );
    expect(() => cipher.decrypt(parts(v, kid, nonce, body, flip(tag)), ROW)).toThrow(
      SecretUnreadableError,
    );
    expect(() => cipher.decrypt(parts(v, kid, flip(nonce), body, tag), ROW)).toThrow(
      SecretUnreadableError,
    );
    expect(() => cipher.decrypt(parts('v3', kid, nonce, body, tag), ROW)).toThrow(/unrecognised/);
    expect(() => cipher.decrypt(parts(v, kid, nonce, body), ROW)).toThrow(/unrecognised/);
    expect(() => cipher.decrypt(parts(v, kid, 'AAAA', body, tag), ROW)).toThrow(/malformed/);
    expect(() => createAesGcmCipher(randomBytes(32)).decrypt(sealed, ROW)).toThrow(
      /neither the current nor a previous/,
    );
    // The message names the row, never the secret.
    try {
      cipher.decrypt(sealed, OTHER_ROW);
    } catch (error) {
      expect(String(error)).toContain(OTHER_ROW);
      expect(String(error)).not.toContain('secret token');
    }
  });

  it('rotates: previous keys decrypt, only the current key encrypts', () => {
    const oldKey = randomBytes(32);
    const before = createAesGcmCipher(oldKey).encrypt('old token', ROW);
    const rotated = createAesGcmCipher(randomBytes(32), { previous: [oldKey] });
    expect(rotated.decrypt(before, ROW)).toBe('old token');
    expect(rotated.isCurrent(before)).toBe(false);
    const resealed = rotated.encrypt('old token', ROW);
    expect(rotated.isCurrent(resealed)).toBe(true);
    // Once re-encrypted, the old key is no longer needed; without it, the old ciphertext is lost.
    expect(() => createAesGcmCipher(oldKey).decrypt(resealed, ROW)).toThrow(SecretUnreadableError);
  });

  it('reads the old unbound format with the current or a previous key, as not current', () => {
    const oldKey = randomBytes(32);
    const legacy = legacyV1(oldKey, 'legacy token');
    expect(createAesGcmCipher(oldKey).decrypt(legacy, ROW)).toBe('legacy token');
    const rotated = createAesGcmCipher(randomBytes(32), { previous: [oldKey] });
    expect(rotated.decrypt(legacy, ROW)).toBe('legacy token');
    expect(rotated.isCurrent(legacy)).toBe(false);
    expect(createAesGcmCipher(oldKey).isCurrent(legacy)).toBe(false);
    expect(() => createAesGcmCipher(randomBytes(32)).decrypt(legacy, ROW)).toThrow(
      /no configured encryption key/,
    );
  });

  it('needs 32-byte keys', () => {
    expect(() => createAesGcmCipher(randomBytes(16))).toThrow(/32-byte key/);
    expect(() => createAesGcmCipher(key, { previous: [randomBytes(8)] })).toThrow(
      /32-byte previous key/,
    );
  });
});

describe('webhook secrets at rest', () => {
  const cipher = createAesGcmCipher(randomBytes(32));
  const id = '0190a0b0-0000-7000-8000-0000000000aa';

  it('opens a sealed secret of its own webhook only', () => {
    const secretCiphertext = cipher.encrypt('whsec_abc', secretBinding.webhookSecret(id));
    expect(openWebhookSecret(cipher, { id, secretCiphertext })).toBe('whsec_abc');
    expect(() =>
      openWebhookSecret(cipher, { id: '0190a0b0-0000-7000-8000-0000000000bb', secretCiphertext }),
    ).toThrow(SecretUnreadableError);
  });

  it('reads a row stored before secrets were encrypted as it is', () => {
    expect(openWebhookSecret(cipher, { id, secretCiphertext: 'whsec_plain' })).toBe('whsec_plain');
  });
});
