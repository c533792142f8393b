import { describe, expect, it } from 'vitest';
import { retryAtFrom } from '../src/shared/rate-limit.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const noJitter = () => 0;

describe('retryAtFrom: when the platform lets the account call again', () => {
  it('Retry-After in seconds', () => {
    const at = retryAtFrom({ 'retry-after': '30' }, 60_000, NOW, noJitter);
    expect(at.getTime() - NOW).toBe(30_000);
  });

  it('Retry-After as an HTTP date', () => {
    const at = retryAtFrom({ 'retry-after': 'Thu, 01 Jan 2026 00:02:00 GMT' }, 1, NOW, noJitter);
    expect(at.getTime() - NOW).toBe(120_000);
  });

  it("X's x-rate-limit-reset (epoch seconds)", () => {
    const reset = String((NOW + 900_000) / 1000);
    const at = retryAtFrom({ 'x-rate-limit-reset': reset }, 1, NOW, noJitter);
    expect(at.getTime() - NOW).toBe(900_000);
  });

  it('without a header, the fallback; never less than a second; jitter up to 10 %', () => {
    expect(retryAtFrom({}, 60_000, NOW, noJitter).getTime() - NOW).toBe(60_000);
    expect(retryAtFrom({ 'retry-after': '0' }, 60_000, NOW, noJitter).getTime() - NOW).toBe(1_000);
    const past = String((NOW - 5_000) / 1000);
    expect(retryAtFrom({ 'x-rate-limit-reset': past }, 1, NOW, noJitter).getTime() - NOW).toBe(
      1_000,
    );
    expect(retryAtFrom({}, 60_000, NOW, () => 1).getTime() - NOW).toBe(66_000);
  });

  it('ignores garbage headers', () => {
    const headers = { 'retry-after': 'soon', 'x-rate-limit-reset': 'later' };
    expect(retryAtFrom(headers, 5_000, NOW, noJitter).getTime() - NOW).toBe(5_000);
  });
});
