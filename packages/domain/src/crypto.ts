import { createHash, createHmac, randomBytes, randomFillSync, randomInt } from 'node:crypto';
import type { Clock, IdGenerator } from './ports/index.ts';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `sp_` + 40 base62 characters (about 238 bits). */
export const API_KEY_PATTERN = /^sp_[A-Za-z0-9]{40}$/;
export const API_KEY_PREFIX_LENGTH = 11;

/** A new raw API key. `randomInt` rejects out-of-range draws internally, so no modulo bias. */
export function generateApiKey(): string {
  let key = 'sp_';
  for (let i = 0; i < 40; i++) key += BASE62[randomInt(BASE62.length)];
  return key;
}

export const isApiKeyFormat = (raw: string): boolean => API_KEY_PATTERN.test(raw);

/** What is stored instead of the key (only its SHA-256 hash is retained: docs/api.md#authentication). */
export const hashApiKey = (raw: string): string =>
  createHash('sha256').update(raw, 'utf8').digest('hex');

/** Shown in listings so a user can tell keys apart: `sp_` + 8 characters. */
export const keyPrefix = (raw: string): string => raw.slice(0, API_KEY_PREFIX_LENGTH);

/**
 * `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format, so receivers can
 * verify `webhook-signature` with the stock libraries (they base64-decode what follows the prefix).
 */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** `X-Social-Publisher-Signature` (docs/api.md#webhook-signatures): HMAC-SHA256 of the raw body keyed with the whole secret string. */
export function signPayload(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard Webhooks key: the base64 part after `whsec_`, or the raw secret if it is not base64. */
function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return encoded !== '' && BASE64.test(encoded)
    ? Buffer.from(encoded, 'base64')
    : Buffer.from(secret, 'utf8');
}

/** `webhook-signature` of the Standard Webhooks spec: `v1,` + base64 HMAC of `id.timestamp.body`. */
export function standardWebhookSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac('sha256', standardWebhookKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

// ---------------------------------------------------------------- UUID v7

/**
 * Random bytes drawn from a pool refilled 4 KB at a time: one `randomBytes` call per id cost
 * about 5 % of the API's CPU per create (three ids each), most of it the call itself. Node's
 * own `randomUUID` caches its entropy the same way; each byte is still used once.
 */
function createEntropyPool(size = 4096): (count: number) => Buffer {
  const pool = Buffer.alloc(size);
  let offset = size;
  return (count) => {
    if (offset + count > size) {
      randomFillSync(pool);
      offset = 0;
    }
    // A copy: the caller writes into it. Ids are public, so the pool keeps no secret.
    const bytes = Buffer.from(pool.subarray(offset, offset + count));
    offset += count;
    return bytes;
  };
}

/**
 * RFC 9562 UUIDv7 generator: 48-bit Unix milliseconds, then a 12-bit counter in rand_a
 * (method 1, "fixed bit-length dedicated counter") seeded randomly each millisecond, then 62
 * random bits. Ids from one generator sort strictly in creation order, even within one
 * millisecond or if the clock steps back.
 */
export function createUuidV7Generator(clock?: Clock): IdGenerator {
  const random = createEntropyPool();
  let lastMs = -1;
  let counter = 0;
  // A counter seed below 0x800 leaves room for at least 2048 increments in one millisecond.
  const seed = (bytes: Buffer) => (((bytes[6] ?? 0) << 8) | (bytes[7] ?? 0)) & 0x7ff;
  return {
    newId(): string {
      const bytes = random(16);
      let ms = clock ? clock.now().getTime() : Date.now();
      if (ms > lastMs) {
        lastMs = ms;
        counter = seed(bytes);
      } else {
        ms = lastMs;
        counter++;
        if (counter > 0xfff) {
          lastMs = ms = lastMs + 1;
          counter = seed(bytes);
        }
      }
      bytes.writeUIntBE(ms, 0, 6);
      bytes[6] = 0x70 | (counter >> 8);
      bytes[7] = counter & 0xff;
      bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
}

const defaultGenerators = new WeakMap<Clock, IdGenerator>();
const systemGenerator = createUuidV7Generator();

/** A new UUIDv7, monotonic per clock (the system clock when none is given). */
export function uuidv7(clock?: Clock): string {
  if (!clock) return systemGenerator.newId();
  let generator = defaultGenerators.get(clock);
  if (!generator) {
    generator = createUuidV7Generator(clock);
    defaultGenerators.set(clock, generator);
  }
  return generator.newId();
}
