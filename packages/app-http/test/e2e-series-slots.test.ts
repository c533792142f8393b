/**
 * Repeating posts and posting slots through the HTTP API, in both modes: slots set and read,
 * 20 parallel POST /posts/queue for one connection get 20 distinct slots, a repeating post
 * publishes its first occurrence while the next one already waits, and DELETE /post-series
 * stops it (the published post stays, the scheduled one is cancelled).
 */
import { describe, expect, it } from 'vitest';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

const PARALLEL = 20;

interface PostJson {
  id: string;
  status: string;
  scheduled_at: string | null;
  series_id: string | null;
}
interface SeriesJson {
  id: string;
  status: string;
  rrule: string;
  timezone: string;
  occurrences: Array<{ occurrence_at: string; post_id: string }>;
  next_occurrences: string[];
}
interface ErrorJson {
  error: { code: string; details?: Array<{ field: string }> };
}

async function connectX(system: System, name: string): Promise<string> {
  const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
    platform: 'twitter',
    external_id: `${system.x.user.id}`,
    display_name: name,
    access_token: `token-${name}`,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data.id;
}

const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('repeating posts and slots, %s mode', (mode) => {
  const e2e = useSystem(mode);

  it(`slots: PUT then GET; ${PARALLEL} parallel POST /posts/queue get ${PARALLEL} distinct future slots`, async (context) => {
    const system = e2e.orSkip(context);
    const api = system.api;
    const account = await connectX(system, 'slots');
    const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const slots = days.flatMap((day) => [
      { day, time: '08:30' },
      { day, time: '18:00' },
    ]);
    const put = await api.call<{ data: { timezone: string; slots: unknown[] } }>(
      'PUT',
      `/social-accounts/${account}/slots`,
      { timezone: 'Europe/Berlin', slots },
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const got = await api.call<{ data: { timezone: string; slots: unknown[] } }>(
      'GET',
      `/social-accounts/${account}/slots`,
    );
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ timezone: 'Europe/Berlin', slots });

    const before = Date.now();
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, index) =>
        api.call<{ data: PostJson }>('POST', '/posts/queue', {
          content: `queued ${index}`,
          social_account_ids: [account],
        }),
      ),
    );
    for (const response of responses) {
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.data.status).toBe('scheduled');
    }
    const times = responses.map((response) => response.body.data.scheduled_at as string);
    expect(new Set(times).size).toBe(PARALLEL);
    for (const time of times) {
      expect(new Date(time).getTime()).toBeGreaterThan(before);
      const berlin = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
      }).format(new Date(time));
      expect(['08:30', '18:00']).toContain(berlin);
    }
  }, 60_000);

  it('POST /posts/queue for a connection without slots: 400 no_slots; bad slots: 400', async (context) => {
    const system = e2e.orSkip(context);
    const api = system.api;
    const account = await connectX(system, 'no-slots');
    const queued = await api.call<ErrorJson>('POST', '/posts/queue', {
      content: 'nowhere to go',
      social_account_ids: [account],
    });
    expect(queued.status).toBe(400);
    expect(queued.body.error.code).toBe('no_slots');

    const bad = await api.call<ErrorJson>('PUT', `/social-accounts/${account}/slots`, {
      timezone: 'Atlantis/Capital',
      slots: [{ day: 'mon', time: '09:00' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.details?.map((problem) => problem.field)).toContain('timezone');
    const unknown = await api.call<ErrorJson>(
      'GET',
      '/social-accounts/00000000-0000-7000-8000-00000000abcd/slots',
    );
    expect(unknown.status).toBe(404);
  }, 30_000);

  it('a repeating post: the first occurrence publishes while the next waits; DELETE stops the series', async (context) => {
    const system = e2e.orSkip(context);
    const api = system.api;
    const account = await connectX(system, 'series');
    const first = new Date(Date.now() + 3_000);
    first.setUTCMilliseconds(0);
    const created = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: 'every day',
      social_account_ids: [account],
      scheduled_at: first.toISOString(),
      recurrence: { rrule: 'FREQ=DAILY', timezone: 'Europe/Berlin', count: 30 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const seriesId = created.body.data.series_id as string;
    expect(seriesId).toEqual(expect.any(String));

    const view = await api.call<{ data: SeriesJson }>('GET', `/post-series/${seriesId}`);
    expect(view.status).toBe(200);
    expect(view.body.data).toMatchObject({
      status: 'active',
      rrule: 'FREQ=DAILY',
      timezone: 'Europe/Berlin',
    });
    const [firstOccurrence, secondOccurrence] = view.body.data.occurrences;
    expect(firstOccurrence?.post_id).toBe(created.body.data.id);
    expect(new Date(secondOccurrence?.occurrence_at as string).getTime()).toBe(
      first.getTime() + 86_400_000,
    );
    expect(view.body.data.next_occurrences.length).toBeGreaterThan(1);

    await waitFor(
      'the first occurrence to publish',
      async () => {
        const post = await api.call<{ data: PostJson }>('GET', `/posts/${created.body.data.id}`);
        return post.body.data.status === 'published' ? post : undefined;
      },
      30_000,
      200,
    );
    const next = await api.call<{ data: PostJson }>('GET', `/posts/${secondOccurrence?.post_id}`);
    expect(next.body.data).toMatchObject({ status: 'scheduled', series_id: seriesId });

    const stopped = await api.call<{ data: SeriesJson }>('DELETE', `/post-series/${seriesId}`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.data.status).toBe('stopped');
    expect(stopped.body.data.next_occurrences).toEqual([]);
    const statuses = await Promise.all(
      stopped.body.data.occurrences.map(
        async (o) =>
          (await api.call<{ data: PostJson }>('GET', `/posts/${o.post_id}`)).body.data.status,
      ),
    );
    // Once the first was due, a reconcile pass may have created the one after the next too.
    expect(statuses[0]).toBe('published');
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.slice(1).every((status) => status === 'cancelled')).toBe(true);
  }, 60_000);

  it('a bad recurrence is a 400 naming its field; an unknown series is a 404', async (context) => {
    const system = e2e.orSkip(context);
    const api = system.api;
    const account = await connectX(system, 'bad-series');
    const bad = await api.call<ErrorJson>('POST', '/posts/schedule', {
      content: 'never',
      social_account_ids: [account],
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      recurrence: { rrule: 'FREQ=WEEKLY;COUNT=3', timezone: 'Europe/Berlin' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details?.map((problem) => problem.field)).toContain('recurrence.rrule');
    // Rules that never match, or match less than an hour apart: refused at once, nothing kept.
    for (const rrule of [
      'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      'FREQ=HOURLY;BYMONTHDAY=31;BYMONTH=4,6,9,11',
      'FREQ=HOURLY;INTERVAL=24;BYHOUR=5',
      'FREQ=HOURLY;BYMINUTE=0;BYSECOND=0,1,2,3,4,5,6,7,8,9',
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0,1,2',
    ]) {
      const [refused, health] = await Promise.all([
        api.call<ErrorJson>('POST', '/posts/schedule', {
          content: rrule,
          social_account_ids: [account],
          // 09:00 in Berlin: BYHOUR=5 is out of reach of a 24-hour step from it.
          scheduled_at: '2027-01-05T08:00:00Z',
          recurrence: { rrule, timezone: 'Europe/Berlin' },
        }),
        api.call('GET', '/health'),
      ]);
      expect(refused.status, rrule).toBe(400);
      expect(refused.body.error.details?.map((problem) => problem.field)).toContain(
        'recurrence.rrule',
      );
      expect(health.status).toBe(200);
    }
    const notRepeating = await api.call<ErrorJson>('POST', '/posts', {
      content: 'now',
      social_account_ids: [account],
      recurrence: { rrule: 'FREQ=DAILY', timezone: 'UTC' },
    });
    expect(notRepeating.status).toBe(400);
    const missing = await api.call<ErrorJson>(
      'GET',
      '/post-series/00000000-0000-7000-8000-00000000abcd',
    );
    expect(missing.status).toBe(404);
    expect((await api.call('DELETE', '/post-series/not-a-uuid')).status).toBe(404);
  }, 30_000);
});
