/**
 * Repeating posts and posting slots through their use cases, on any storage: the in-memory
 * fakes, PGlite and PostgreSQL run the same scenarios (adapter-postgres adds the races between
 * separate pools).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../deps.ts';
import type { Repositories, UnitOfWork } from '../../ports/index.ts';
import { createPost, getPost } from '../../use-cases/posts.ts';
import { reconcile } from '../../use-cases/reconcile.ts';
import { createRepeatingPost, getSeries, stopSeries } from '../../use-cases/recurrence.ts';
import { putSlots, queuePost } from '../../use-cases/slots.ts';
import { type SeededUser, seedConnection, seedUser } from '../seed.ts';
import { createTestDeps, type TestDeps } from '../test-deps.ts';

/** The storage a scenario runs on. */
export interface ScenarioStorage {
  repos: Repositories;
  uow: UnitOfWork;
}

/** Test deps (fake clock, queue, platforms) over the given storage, with random UUIDs. */
export function depsOn(storage: ScenarioStorage, now = '2026-01-01T00:00:00Z'): TestDeps {
  const base = createTestDeps({ now, ids: { newId: () => randomUUID() } });
  if (storage.repos === base.repos) return base;
  return { ...base, repos: storage.repos, uow: storage.uow as TestDeps['uow'] };
}

const DAILY_9_BERLIN = { rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Berlin' };

async function userWithConnection(deps: CoreDeps): Promise<{ alice: SeededUser; x: string }> {
  const alice = await seedUser(deps, `alice-${randomUUID()}@example.com`);
  const connection = await seedConnection(deps, alice.user.id, 'twitter');
  return { alice, x: connection.id };
}

async function seriesOccurrences(deps: CoreDeps, alice: SeededUser, seriesId: string) {
  const view = await getSeries(deps, alice.actor, seriesId);
  if (!view.ok) throw new Error(view.error.message);
  return view.value.occurrences.map((occurrence) => occurrence.occurrenceAt.toISOString());
}

export function describeSeriesAndSlots(
  name: string,
  open: () => Promise<ScenarioStorage | undefined>,
): void {
  const deps = async (now?: string): Promise<TestDeps> => {
    const storage = await open();
    if (!storage) throw new Error(`${name}: no storage`);
    return depsOn(storage, now);
  };

  describe(`repeating posts (${name})`, () => {
    it('the first occurrence and the next exist at once, each its own post with series_id', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'daily', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        DAILY_9_BERLIN,
      );
      if (!created.ok) throw new Error(created.error.message);
      const first = created.value;
      expect(first.seriesId).not.toBeNull();
      const seriesId = first.seriesId as string;
      expect(await seriesOccurrences(d, alice, seriesId)).toEqual([
        '2026-01-05T08:00:00.000Z',
        '2026-01-06T08:00:00.000Z',
      ]);
      const view = await getSeries(d, alice.actor, seriesId);
      if (!view.ok) throw new Error(view.error.message);
      const second = await getPost(d, alice.actor, view.value.occurrences[1]?.postId as string);
      if (!second.ok) throw new Error(second.error.message);
      expect(second.value).toMatchObject({
        content: 'daily',
        status: 'scheduled',
        seriesId,
        scheduledAt: new Date('2026-01-06T08:00:00Z'),
      });
      expect(second.value.targets.map((target) => target.socialAccountId)).toEqual([x]);
      expect(second.value.id).not.toBe(first.id);
      // Both publish jobs are waiting for their time.
      expect(d.queue.has('publish', first.id)).toBe(true);
      expect(d.queue.has('publish', second.value.id)).toBe(true);
    });

    it('a reconcile pass creates the next occurrence before the current one is due, once', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'daily', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        DAILY_9_BERLIN,
      );
      if (!created.ok) throw new Error(created.error.message);
      const seriesId = created.value.seriesId as string;
      // The first occurrence is now due: the one after the next must exist.
      d.clock.set('2026-01-05T08:00:00Z');
      await reconcile(d);
      await reconcile(d);
      expect(await seriesOccurrences(d, alice, seriesId)).toEqual([
        '2026-01-05T08:00:00.000Z',
        '2026-01-06T08:00:00.000Z',
        '2026-01-07T08:00:00.000Z',
      ]);
      // A restarted worker (fresh deps on the same storage, later clock) catches up alone.
      const restarted = depsOn({ repos: d.repos, uow: d.uow }, '2026-01-06T08:30:00Z');
      await reconcile(restarted);
      expect((await seriesOccurrences(d, alice, seriesId)).slice(3)).toEqual([
        '2026-01-08T08:00:00.000Z',
      ]);
    });

    it('concurrent passes create each occurrence exactly once', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'race', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        DAILY_9_BERLIN,
      );
      if (!created.ok) throw new Error(created.error.message);
      d.clock.set('2026-01-07T08:00:00Z');
      // Each pass reports what it created (other series on this storage included).
      await Promise.all(Array.from({ length: 5 }, () => reconcile(d)));
      const occurrences = await seriesOccurrences(d, alice, created.value.seriesId as string);
      expect(occurrences).toEqual([
        '2026-01-05T08:00:00.000Z',
        '2026-01-06T08:00:00.000Z',
        '2026-01-08T08:00:00.000Z',
        '2026-01-09T08:00:00.000Z',
      ]);
      const posts = await Promise.all(
        (await d.repos.series.listOccurrences(created.value.seriesId as string)).map((o) =>
          d.repos.posts.findById(o.postId),
        ),
      );
      expect(posts.map((post) => post?.scheduledAt?.toISOString())).toEqual(occurrences);
    });

    it('count ends the series: finished, and no occurrence past it', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'twice', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        { ...DAILY_9_BERLIN, count: 2 },
      );
      if (!created.ok) throw new Error(created.error.message);
      const seriesId = created.value.seriesId as string;
      d.clock.set('2026-01-06T09:00:00Z');
      await reconcile(d);
      const view = await getSeries(d, alice.actor, seriesId);
      if (!view.ok) throw new Error(view.error.message);
      expect(view.value.series.status).toBe('finished');
      expect(view.value.occurrences).toHaveLength(2);
      expect(view.value.nextOccurrences).toEqual([]);
    });

    it('a rule with no occurrence within the horizon, or occurrences under an hour apart, is refused and nothing stored', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      for (const rrule of [
        'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
        'FREQ=HOURLY;BYMONTHDAY=31;BYMONTH=4,6,9,11',
        'FREQ=HOURLY;INTERVAL=24;BYHOUR=5',
        'FREQ=HOURLY;BYMINUTE=0;BYSECOND=0,1,2',
        'FREQ=DAILY;BYHOUR=9;BYMINUTE=0,1,2',
      ]) {
        const refused = await createRepeatingPost(
          d,
          alice.ctx,
          { content: rrule, social_account_ids: [x], scheduled_at: '2026-01-05T09:00:00Z' },
          { rrule, timezone: 'Europe/Berlin' },
        );
        expect(refused.ok, rrule).toBe(false);
        if (refused.ok) continue;
        expect(refused.error.code, rrule).toBe('validation_failed');
        expect(JSON.stringify(refused.error), rrule).toContain('recurrence.rrule');
      }
      expect(await d.repos.posts.listByCreator(alice.user.id, [alice.ctx.accountId])).toHaveLength(
        0,
      );
    });

    it('a stored series whose rule can no longer produce an occurrence ends finished', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'stale rule', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        DAILY_9_BERLIN,
      );
      if (!created.ok) throw new Error(created.error.message);
      const seriesId = created.value.seriesId as string;
      const series = await d.repos.series.findById(seriesId);
      if (!series) throw new Error('no series');
      // A rule stored before rules were bounded: it never matches.
      const staleId = randomUUID();
      await d.repos.series.insert({
        ...series,
        id: staleId,
        rrule: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      });
      d.clock.set('2026-01-07T09:00:00Z');
      await reconcile(d);
      expect((await d.repos.series.findById(staleId))?.status).toBe('finished');
      // Finished series are not expanded again.
      const needing = await d.repos.series.listNeedingOccurrences(d.clock.now(), 2, 1000);
      expect(needing.map(({ series: found }) => found.id)).not.toContain(staleId);
    });

    it('stopping cancels the scheduled occurrences, keeps a published one, creates no more', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'stop me', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        DAILY_9_BERLIN,
      );
      if (!created.ok) throw new Error(created.error.message);
      const first = created.value;
      // The first occurrence has been published.
      await d.repos.posts.transitionStatus(first.id, ['scheduled'], 'published', d.clock.now());
      const stopped = await stopSeries(d, alice.actor, first.seriesId as string);
      if (!stopped.ok) throw new Error(stopped.error.message);
      expect(stopped.value.series.status).toBe('stopped');
      expect(stopped.value.nextOccurrences).toEqual([]);
      const statuses = await Promise.all(
        stopped.value.occurrences.map(
          async (o) => (await d.repos.posts.findById(o.postId))?.status,
        ),
      );
      expect(statuses).toEqual(['published', 'cancelled']);
      d.clock.set('2026-01-10T00:00:00Z');
      await reconcile(d);
      expect(await seriesOccurrences(d, alice, first.seriesId as string)).toHaveLength(2);
      expect((await stopSeries(d, alice.actor, first.seriesId as string)).ok).toBe(true);
    });

    it('another user sees no series; a bad recurrence names its fields with the post problems', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      const bob = await seedUser(d, `bob-${randomUUID()}@example.com`);
      const created = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'mine', social_account_ids: [x], scheduled_at: '2026-01-05T08:00:00Z' },
        DAILY_9_BERLIN,
      );
      if (!created.ok) throw new Error(created.error.message);
      const seriesId = created.value.seriesId as string;
      expect(await getSeries(d, bob.actor, seriesId)).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
      expect(await stopSeries(d, bob.actor, seriesId)).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
      const bad = await createRepeatingPost(
        d,
        alice.ctx,
        { content: 'x', social_account_ids: [x], scheduled_at: '2025-01-05T08:00:00Z' },
        { rrule: 'FREQ=NEVER', timezone: 'Europe/Berlin' },
      );
      expect(bad.ok).toBe(false);
      if (bad.ok || bad.error.code !== 'validation_failed') throw new Error('expected a 400');
      expect(bad.error.details.map((problem) => problem.field)).toEqual(
        expect.arrayContaining(['scheduled_at', 'recurrence.rrule']),
      );
    });
  });

  describe(`posting slots (${name})`, () => {
    const WEEKDAYS_9_AND_17 = {
      timezone: 'Europe/Berlin',
      slots: ['mon', 'tue', 'wed', 'thu', 'fri'].flatMap((day) => [
        { day, time: '09:00' },
        { day, time: '17:00' },
      ]),
    };

    it('the earliest future slot none of the connections uses', async () => {
      // Thursday 2026-01-01 09:00 Berlin exactly: that slot is not strictly in the future.
      const d = await deps('2026-01-01T08:00:00Z');
      const { alice, x } = await userWithConnection(d);
      expect((await putSlots(d, alice.actor, x, WEEKDAYS_9_AND_17)).ok).toBe(true);
      // A post scheduled by hand at the 17:00 slot takes it.
      const manual = await createPost(
        d,
        alice.ctx,
        { content: 'manual', social_account_ids: [x], scheduled_at: '2026-01-01T16:00:00Z' },
        'scheduled',
      );
      expect(manual.ok).toBe(true);
      const times: string[] = [];
      for (let i = 0; i < 3; i++) {
        const queued = await queuePost(d, alice.ctx, { content: `q${i}`, social_account_ids: [x] });
        if (!queued.ok) throw new Error(queued.error.message);
        expect(queued.value.status).toBe('scheduled');
        expect(d.queue.has('publish', queued.value.id)).toBe(true);
        times.push((queued.value.scheduledAt as Date).toISOString());
      }
      expect(times).toEqual([
        '2026-01-02T08:00:00.000Z', // Friday 09:00
        '2026-01-02T16:00:00.000Z', // Friday 17:00
        '2026-01-05T08:00:00.000Z', // Monday 09:00 (no weekend slots)
      ]);
    });

    it('a post to two connections takes a slot free on both; a cancelled post frees its slot', async () => {
      const d = await deps('2026-01-01T00:00:00Z');
      const { alice, x } = await userWithConnection(d);
      const linkedin = (await seedConnection(d, alice.user.id, 'linkedin')).id;
      await putSlots(d, alice.actor, x, WEEKDAYS_9_AND_17);
      await putSlots(d, alice.actor, linkedin, {
        timezone: 'Europe/Berlin',
        slots: [
          { day: 'thu', time: '09:00' },
          { day: 'fri', time: '17:00' },
        ],
      });
      const onX = await queuePost(d, alice.ctx, { content: 'x only', social_account_ids: [x] });
      if (!onX.ok) throw new Error(onX.error.message);
      expect(onX.value.scheduledAt?.toISOString()).toBe('2026-01-01T08:00:00.000Z');
      const both = await queuePost(d, alice.ctx, {
        content: 'both',
        social_account_ids: [x, linkedin],
      });
      if (!both.ok) throw new Error(both.error.message);
      // Thursday 09:00 is taken on X; the next slot either has is Thursday 17:00 (X's).
      expect(both.value.scheduledAt?.toISOString()).toBe('2026-01-01T16:00:00.000Z');
      const again = await queuePost(d, alice.ctx, { content: 'x', social_account_ids: [x] });
      if (!again.ok) throw new Error(again.error.message);
      expect(again.value.scheduledAt?.toISOString()).toBe('2026-01-02T08:00:00.000Z');
    });

    it('no_slots for a connection without slots; scheduled_at is refused', async () => {
      const d = await deps();
      const { alice, x } = await userWithConnection(d);
      expect(
        await queuePost(d, alice.ctx, { social_account_ids: [x], content: 'a' }),
      ).toMatchObject({ ok: false, error: { code: 'no_slots' } });
      await putSlots(d, alice.actor, x, { timezone: 'UTC', slots: [] });
      expect(
        await queuePost(d, alice.ctx, { social_account_ids: [x], content: 'a' }),
      ).toMatchObject({ ok: false, error: { code: 'no_slots' } });
      await putSlots(d, alice.actor, x, WEEKDAYS_9_AND_17);
      expect(
        await queuePost(d, alice.ctx, {
          social_account_ids: [x],
          content: 'a',
          scheduled_at: '2026-02-01T00:00:00Z',
        }),
      ).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    });
  });
}
