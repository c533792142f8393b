import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_PATTERN,
  createUuidV7Generator,
  generateApiKey,
  generateWebhookSecret,
  hashApiKey,
  isApiKeyFormat,
  keyPrefix,
  signPayload,
  standardWebhookSignature,
  uuidv7,
} from '../src/index.ts';
import { FakeClock } from '../src/testing/index.ts';

describe('webhook signatures', () => {
  it('signPayload is HMAC-SHA256 hex (RFC 4231 test case 2)', () => {
    expect(signPayload('Jefe', 'what do ya want for nothing?')).toBe(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('webhook secrets are whsec_ + base64 of 24 bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('standardWebhookSignature verifies with the standardwebhooks library', () => {
    const secret = generateWebhookSecret();
    const body = '{"event":"post.published"}';
    const id = 'msg_0190a5d2';
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = standardWebhookSignature(secret, id, timestamp, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual({ event: 'post.published' });
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the standard-webhooks specification's example.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(standardWebhookSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('falls back to the raw secret when it is not base64', () => {
    const a = standardWebhookSignature('whsec_not*base64', 'id', 1, 'b');
    const b = standardWebhookSignature('plain-secret', 'id', 1, 'b');
    expect(a).toMatch(/^v1,/);
    expect(b).not.toBe(a);
  });
});

describe('API keys', () => {
  it('are sp_ + 40 base62 characters, all different', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(API_KEY_PATTERN);
      expect(isApiKeyFormat(key)).toBe(true);
    }
  });

  it('use every base62 character, roughly evenly', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 500; i++) {
      for (const char of generateApiKey().slice(3)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    // 20000 draws over 62 symbols: about 322 each.
    for (const count of counts.values()) expect(count).toBeGreaterThan(200);
  });

  it('are recognised by format', () => {
    expect(isApiKeyFormat(`sp_${'a'.repeat(40)}`)).toBe(true);
    expect(isApiKeyFormat(`sp_${'a'.repeat(39)}`)).toBe(false);
    expect(isApiKeyFormat(`sk_${'a'.repeat(40)}`)).toBe(false);
    expect(isApiKeyFormat(`sp_${'a'.repeat(39)}-`)).toBe(false);
  });

  it('are stored as a SHA-256 hex hash, shown by an 11-character prefix', () => {
    expect(hashApiKey('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const key = generateApiKey();
    expect(keyPrefix(key)).toBe(key.slice(0, 11));
    expect(keyPrefix(key)).toMatch(/^sp_[A-Za-z0-9]{8}$/);
  });
});

describe('UUIDv7', () => {
  const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('carries the clock time in its first 48 bits', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.000Z');
    const id = createUuidV7Generator(clock).newId();
    expect(id).toMatch(V7);
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(clock.now().getTime());
  });

  it('sorts in creation order within one millisecond and across counter overflow', () => {
    const clock = new FakeClock();
    const generator = createUuidV7Generator(clock);
    const ids = Array.from({ length: 10_000 }, () => generator.newId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids.slice(0, 50)) expect(id).toMatch(V7);
  });

  it('draws fresh random bits for every id, across refills of its entropy pool', () => {
    const clock = new FakeClock('2026-01-01T00:00:00.000Z');
    const generator = createUuidV7Generator(clock);
    const tails = new Set<string>();
    const seeds = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      clock.advance(1); // a new millisecond each time: the counter is reseeded from the pool
      const hex = generator.newId().replaceAll('-', '');
      tails.add(hex.slice(17)); // the 62 random bits of rand_b (less the variant bits)
      seeds.add(hex.slice(13, 16));
    }
    expect(tails.size).toBe(2_000);
    expect(seeds.size).toBeGreaterThan(400); // 2,000 draws of 11 bits: about 1,300 distinct
  });

  it('stays ordered when the clock goes back', () => {
    const clock = new FakeClock('2026-01-01T00:00:01Z');
    const generator = createUuidV7Generator(clock);
    const first = generator.newId();
    clock.set('2026-01-01T00:00:00Z');
    expect(generator.newId() > first).toBe(true);
    clock.set('2026-01-01T00:00:05Z');
    expect(generator.newId() > first).toBe(true);
  });

  it('uuidv7() works with the system clock or a given one', () => {
    const a = uuidv7();
    const b = uuidv7();
    expect(a).toMatch(V7);
    expect(b > a).toBe(true);
    const clock = new FakeClock();
    const c = uuidv7(clock);
    const d = uuidv7(clock);
    expect(d > c).toBe(true);
    expect(c.startsWith(clock.now().getTime().toString(16).padStart(12, '0').slice(0, 8))).toBe(
      true,
    );
  });
});
