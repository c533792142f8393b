import { describe, expect, it } from 'vitest';
import {
  instantOf,
  occurrencesAfter,
  slotTimes,
  validateRecurrence,
  validateSlotSet,
  whyRuleNeverRepeats,
} from '../src/index.ts';

const iso = (dates: Date[]) => dates.map((date) => date.toISOString());
const weekly = {
  rrule: 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=9;BYMINUTE=0',
  timezone: 'Europe/Berlin',
  count: null,
  until: null,
};

describe('wall-clock times in a timezone', () => {
  it('a time skipped by spring-forward moves forward; a repeated one is the earlier', () => {
    const wall = (month: number, day: number, hour: number, minute: number) => ({
      year: 2026,
      month,
      day,
      hour,
      minute,
      second: 0,
    });
    expect(instantOf(wall(3, 29, 2, 30), 'Europe/Berlin').toISOString()).toBe(
      '2026-03-29T01:30:00.000Z', // 03:30 CEST
    );
    expect(instantOf(wall(10, 25, 2, 30), 'Europe/Berlin').toISOString()).toBe(
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, the first of the two
    );
    expect(instantOf(wall(3, 8, 2, 30), 'America/New_York').toISOString()).toBe(
      '2026-03-08T07:30:00.000Z', // 03:30 EDT
    );
  });
});

describe('occurrencesAfter', () => {
  it('Europe/Berlin weekly 09:00 stays 09:00 across the last Sunday of March', () => {
    const series = { ...weekly, firstAt: new Date('2026-03-15T08:00:00Z') }; // 09:00 CET
    expect(iso(occurrencesAfter(series, new Date('2026-03-01T00:00:00Z'), 4))).toEqual([
      '2026-03-15T08:00:00.000Z',
      '2026-03-22T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z', // the DST change itself: 09:00 CEST
      '2026-04-05T07:00:00.000Z',
    ]);
  });

  it('Europe/Berlin weekly 09:00 stays 09:00 across the last Sunday of October', () => {
    const series = { ...weekly, firstAt: new Date('2026-10-18T07:00:00Z') }; // 09:00 CEST
    expect(iso(occurrencesAfter(series, new Date('2026-10-01T00:00:00Z'), 3))).toEqual([
      '2026-10-18T07:00:00.000Z',
      '2026-10-25T08:00:00.000Z', // 09:00 CET
      '2026-11-01T08:00:00.000Z',
    ]);
  });

  it('only occurrences strictly after the given instant, and count includes the first', () => {
    const series = { ...weekly, count: 3, firstAt: new Date('2026-03-15T08:00:00Z') };
    expect(iso(occurrencesAfter(series, new Date('2026-03-15T08:00:00Z'), 10))).toEqual([
      '2026-03-22T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
    ]);
    expect(occurrencesAfter(series, new Date('2026-03-29T07:00:00Z'), 10)).toEqual([]);
  });

  it('until is inclusive, and the first occurrence counts even off the rule (RFC 5545)', () => {
    const series = {
      ...weekly,
      until: new Date('2026-03-29T07:00:00Z'),
      firstAt: new Date('2026-03-18T10:00:00Z'), // a Wednesday
    };
    expect(iso(occurrencesAfter(series, new Date('2026-03-01T00:00:00Z'), 10))).toEqual([
      '2026-03-18T10:00:00.000Z',
      '2026-03-22T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
    ]);
  });
});

describe('validateRecurrence', () => {
  it('accepts an RRULE with or without the RRULE: prefix', () => {
    const { problems, recurrence } = validateRecurrence({
      rrule: 'RRULE:FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=9;BYMINUTE=0',
      timezone: 'Europe/Berlin',
      count: 5,
    });
    expect(problems).toEqual([]);
    expect(recurrence).toEqual({
      rrule: 'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=9;BYMINUTE=0',
      timezone: 'Europe/Berlin',
      count: 5,
      until: null,
    });
  });

  it.each([
    [{ rrule: 'FREQ=SOMETIMES', timezone: 'UTC' }, 'recurrence.rrule'],
    [{ rrule: 'BYDAY=MO', timezone: 'UTC' }, 'recurrence.rrule'],
    [{ rrule: 'FREQ=MINUTELY', timezone: 'UTC' }, 'recurrence.rrule'],
    [{ rrule: 'FREQ=DAILY;COUNT=3', timezone: 'UTC' }, 'recurrence.rrule'],
    [{ rrule: 'DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY', timezone: 'UTC' }, 'recurrence.rrule'],
    [{ rrule: 'FREQ=DAILY', timezone: 'Mars/Olympus' }, 'recurrence.timezone'],
    [{ rrule: 'FREQ=DAILY', timezone: 'UTC', count: 0 }, 'recurrence.count'],
    [{ rrule: 'FREQ=DAILY', timezone: 'UTC', until: '2026-13-01' }, 'recurrence.until'],
    [
      { rrule: 'FREQ=DAILY', timezone: 'UTC', count: 2, until: '2026-06-01T00:00:00Z' },
      'recurrence',
    ],
    ['FREQ=DAILY', 'recurrence'],
  ])('refuses %j (%s)', (value, field) => {
    const { problems, recurrence } = validateRecurrence(value);
    expect(recurrence).toBeNull();
    expect(problems.map((problem) => problem.field)).toContain(field);
  });
});

describe('posting slots', () => {
  it('fall on the wall-clock time of the slot set, across DST, in time order', () => {
    const set = {
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'sun' as const, time: '09:00' },
        { day: 'sun' as const, time: '02:30' },
      ],
    };
    expect(iso(slotTimes(set, new Date('2026-03-27T00:00:00Z'), 10))).toEqual([
      '2026-03-29T01:30:00.000Z', // 02:30 does not exist that night: 03:30 CEST
      '2026-03-29T07:00:00.000Z',
      '2026-04-05T00:30:00.000Z',
      '2026-04-05T07:00:00.000Z',
    ]);
  });

  it('are strictly after the given instant', () => {
    const set = { timezone: 'UTC', slots: [{ day: 'thu' as const, time: '00:00' }] };
    // 2026-01-01 is a Thursday.
    expect(iso(slotTimes(set, new Date('2026-01-01T00:00:00Z'), 8))).toEqual([
      '2026-01-08T00:00:00.000Z',
    ]);
  });

  it('validation names each bad slot and sorts the good ones Monday first', () => {
    const result = validateSlotSet({
      timezone: 'Europe/Berlin',
      slots: [
        { day: 'sun', time: '10:00' },
        { day: 'mon', time: '9:00' },
        { day: 'someday', time: '10:00' },
        { day: 'mon', time: '10:00' },
        { day: 'mon', time: '10:00' },
      ],
    });
    expect(result.problems.map((problem) => problem.field)).toEqual([
      'slots[1].time',
      'slots[2].day',
      'slots[4]',
    ]);
    expect(result.slots).toEqual([
      { day: 'mon', time: '10:00' },
      { day: 'sun', time: '10:00' },
    ]);
    expect(validateSlotSet({ timezone: 'Nowhere/City', slots: [] }).problems).toEqual([
      { field: 'timezone', message: expect.any(String) },
    ]);
  });
});

describe('bounded expansion', () => {
  const firstAt = new Date('2026-12-01T08:00:00Z');
  const series = (rrule: string) => ({
    rrule,
    timezone: 'Europe/Berlin',
    count: null,
    until: null,
    firstAt,
  });

  it.each([
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=HOURLY;BYMONTHDAY=31;BYMONTH=4,6,9,11',
    'FREQ=HOURLY;INTERVAL=24;BYHOUR=5',
    'FREQ=HOURLY;BYSETPOS=2',
    'FREQ=YEARLY;INTERVAL=6',
  ])('%s never repeats within the horizon', (rrule) => {
    expect(whyRuleNeverRepeats({ rrule, timezone: 'Europe/Berlin', firstAt })).toMatch(
      /no occurrence within 5 years/,
    );
    expect(occurrencesAfter(series(rrule), firstAt, 5)).toEqual([]);
  });

  it.each(['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', 'FREQ=MONTHLY;BYDAY=5FR', 'FREQ=HOURLY'])(
    '%s repeats',
    (rrule) => {
      expect(whyRuleNeverRepeats({ rrule, timezone: 'Europe/Berlin', firstAt })).toBeNull();
    },
  );

  it.each(['FREQ=HOURLY;BYMINUTE=0;BYSECOND=0,1,2', 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0,1,2'])(
    '%s is refused: two minutes or seconds of one hour',
    (rrule) => {
      const { problems } = validateRecurrence({ rrule, timezone: 'UTC' });
      expect(problems.map((problem) => problem.field)).toEqual(['recurrence.rrule']);
      expect(problems[0]?.message).toMatch(/at least an hour apart/);
    },
  );

  it('an RRULE the library would throw on is a validation problem', () => {
    const { problems } = validateRecurrence({ rrule: 'FREQ=DAILY;BYSETPOS=400', timezone: 'UTC' });
    expect(problems.map((problem) => problem.field)).toEqual(['recurrence.rrule']);
  });

  it('no two occurrences are under an hour apart: the first rule time just after firstAt is skipped', () => {
    const start = new Date('2026-12-01T08:30:00Z'); // 09:30 Berlin
    const found = occurrencesAfter(
      { ...series('FREQ=HOURLY;BYMINUTE=0'), firstAt: start },
      new Date('2026-12-01T00:00:00Z'),
      4,
    );
    expect(iso(found)).toEqual([
      '2026-12-01T08:30:00.000Z', // 09:30 Berlin; 10:00 is 30 minutes later: skipped
      '2026-12-01T10:00:00.000Z', // 11:00 Berlin
      '2026-12-01T11:00:00.000Z',
      '2026-12-01T12:00:00.000Z',
    ]);
    for (let index = 1; index < found.length; index++) {
      const gap = (found[index]?.getTime() ?? 0) - (found[index - 1]?.getTime() ?? 0);
      expect(gap).toBeGreaterThanOrEqual(3_600_000);
    }
  });

  it.each([
    'FREQ=WEEKLY;INTERVAL=2',
    'FREQ=DAILY',
    'FREQ=MONTHLY;BYDAY=-1FR',
    'FREQ=HOURLY;INTERVAL=5',
  ])('%s walked from a known occurrence gives the same times as from the start', (rrule) => {
    const rule = { ...series(rrule), firstAt: new Date('2026-03-01T08:30:00Z') };
    const known = occurrencesAfter(rule, rule.firstAt, 12)[10] as Date;
    expect(iso(occurrencesAfter(rule, known, 8, known))).toEqual(
      iso(occurrencesAfter(rule, known, 8)),
    );
  });

  it('an hourly series running for two years still finds its next time', () => {
    const rule = { ...series('FREQ=HOURLY'), firstAt: new Date('2026-01-01T00:00:00Z') };
    const now = new Date('2028-01-01T00:30:00Z');
    const latest = new Date('2028-01-01T00:00:00Z');
    expect(iso(occurrencesAfter(rule, now, 1, latest))).toEqual(['2028-01-01T01:00:00.000Z']);
  });
});
