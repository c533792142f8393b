/** METRICS_TOKEN and ADMIN_TOKEN are compared through digests: nothing about length leaks. */
import { describe, expect, it, vi } from 'vitest';

const compared: Array<[number, number]> = [];
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const { sameSecret } = await import('../src/plugins/same-secret.ts');

describe('sameSecret', () => {
  it('tells the right secret from wrong ones, whatever their lengths', () => {
    const expected = 'the-operators-metrics-token';
    expect(sameSecret(expected, expected)).toBe(true);
    for (const wrong of ['', 'x', `${expected}x`, expected.slice(0, -1), 'é'.repeat(13)]) {
      expect(sameSecret(wrong, expected)).toBe(false);
    }
  });

  it('compares fixed-size digests in constant time, for every length (no early exit)', () => {
    compared.length = 0;
    for (const given of ['', 'short', 'x'.repeat(1_000)]) sameSecret(given, 'expected-secret');
    expect(compared).toEqual([
      [32, 32],
      [32, 32],
      [32, 32],
    ]);
  });
});
