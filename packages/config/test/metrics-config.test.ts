// METRICS_*: the refresh schedule as offsets (ascending, at most 400 days), the debounce and
// the retention, each bad value named.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/index.ts';
import { parseRefreshSchedule } from '../src/sections/metrics.ts';

const HOUR = 3_600_000;

describe('metrics settings', () => {
  it('defaults: 1h,6h,24h,72h,7d,30d, 60 s, 400 days', () => {
    const { postMetrics } = loadConfig({});
    expect(postMetrics.refreshScheduleMs).toEqual([1, 6, 24, 72, 168, 720].map((h) => h * HOUR));
    expect(postMetrics.minRefreshMs).toBe(60_000);
    expect(postMetrics.retentionMs).toBe(400 * 24 * HOUR);
  });

  it('COMMENTS_REFRESH_SCHEDULE: 15m,1h,6h,24h,72h,7d by default, read and refused alike', () => {
    expect(loadConfig({}).postComments.refreshScheduleMs).toEqual(
      [0.25, 1, 6, 24, 72, 168].map((h) => h * HOUR),
    );
    expect(loadConfig({ COMMENTS_REFRESH_SCHEDULE: '5m,1d' }).postComments).toEqual({
      refreshScheduleMs: [5 * 60_000, 24 * HOUR],
      replyInFlightMs: 120_000,
    });
    expect(loadConfig({ COMMENTS_REFRESH_SCHEDULE: 'off' }).postComments.refreshScheduleMs).toEqual(
      [],
    );
    expect(() => loadConfig({ COMMENTS_REFRESH_SCHEDULE: '2h,1h' })).toThrow(
      /COMMENTS_REFRESH_SCHEDULE/,
    );
  });

  it('REPLY_IN_FLIGHT_MS: 2 minutes by default, 2 s to 1 h', () => {
    expect(loadConfig({ REPLY_IN_FLIGHT_MS: '6000' }).postComments.replyInFlightMs).toBe(6_000);
    expect(() => loadConfig({ REPLY_IN_FLIGHT_MS: '1999' })).toThrow(/REPLY_IN_FLIGHT_MS/);
    expect(() => loadConfig({ REPLY_IN_FLIGHT_MS: '3600001' })).toThrow(/REPLY_IN_FLIGHT_MS/);
  });

  it('a schedule is read as offsets; off is none', () => {
    expect(parseRefreshSchedule('30m, 2h,1d')).toEqual([0.5 * HOUR, 2 * HOUR, 24 * HOUR]);
    expect(parseRefreshSchedule('off')).toEqual([]);
  });

  it.each([
    ['1h,1h', 'offsets must be ascending'],
    ['6h,1h', 'offsets must be ascending'],
    ['1w', '"1w" is not an offset like 90m, 6h or 7d'],
    ['0h', '"0h" is not an offset like 90m, 6h or 7d'],
    ['401d', '"401d" is later than 400d'],
  ])('%s is refused: %s', (text, problem) => {
    expect(parseRefreshSchedule(text)).toBe(problem);
    expect(() => loadConfig({ METRICS_REFRESH_SCHEDULE: text })).toThrow(ConfigError);
  });

  it('bad numbers are named', () => {
    try {
      loadConfig({ METRICS_MIN_REFRESH_S: '-1', METRICS_RETENTION_DAYS: '0' });
      expect.unreachable();
    } catch (error) {
      const text = String((error as Error).message);
      expect(text).toMatch(/METRICS_MIN_REFRESH_S/);
      expect(text).toMatch(/METRICS_RETENTION_DAYS/);
    }
  });
});
