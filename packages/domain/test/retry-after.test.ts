import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../src/index.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['5', 5_000],
    [' 120 ', 120_000],
    ['Tue, 01 Jan 2030 00:01:00 GMT', 60_000],
    ['Tuesday, 01-Jan-30 00:01:00 GMT', 60_000],
    ['Mon, 31 Dec 2029 23:00:00 GMT', 0],
  ])('%j -> %i ms', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it.each([undefined, '', '-5', '1.5', 'soon', '1e3', '99999999999999999999'])(
    '%j -> null',
    (value) => {
      expect(parseRetryAfter(value, NOW)).toBeNull();
    },
  );

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['7', '9'], NOW)).toBe(7_000);
  });
});
