/**
 * Contract of MetricsRepository: the track a publication starts (PostRepository.completeTarget
 * with metricsDueAt), the read pass's claim and record, a post's history and refresh requests,
 * the daily sums and the retention sweep.
 *
 *   import { describeMetricsRepositoryContract } from '@social-publisher/domain/contracts/storage-metrics';
 *
 * claimDue and deleteSnapshotsBefore are global: they run on times in 1971 (storage-fixtures.ts)
 * that only this suite's claim and retention tests use, and each claim test first takes every
 * track already due (`drain`), so the tests do not depend on each other's leftovers.
 */
import { describe, expect, it } from 'vitest';
import {
  type MetricSnapshot,
  type MetricTrack,
  type MetricValues,
  noMetrics,
} from '../../metrics-model.ts';
import type { Platform, PostWithTargets } from '../../model.ts';
import type { TrackUpdate } from '../../ports/storage/metrics.ts';
import {
  ancient,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedPost,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

const HOUR = 3_600_000;
/** A lease no claim test reaches: what `drain` leaves the tracks it takes with. */
const FAR = new Date(Date.UTC(2200, 0, 1));
/** Later than every due time a claim test uses. */
const ANCIENT_END = ancient(10_000_000);

const metricsWith = (values: Partial<MetricValues>): MetricValues => ({
  ...noMetrics(),
  ...values,
});

function makeSnapshot(targetId: string, takenAt: Date, values: Partial<MetricValues> = {}) {
  const metrics = metricsWith(values);
  const snapshot: MetricSnapshot = {
    id: newId(),
    targetId,
    takenAt,
    metrics,
    raw: { read: 'as-is', ...values },
    sandbox: false,
  };
  return snapshot;
}

/** An update that changes nothing but what `changes` says (a fresh read with its snapshot). */
const updateOf = (track: MetricTrack, changes: Partial<TrackUpdate> = {}): TrackUpdate => ({
  targetId: track.targetId,
  state: track.state,
  step: track.step,
  dueAt: track.dueAt,
  error: track.error,
  ...changes,
});

interface PublishPlan {
  platform?: Platform;
  socialAccountId?: string;
  /** When it is published (default: a fresh 2030 time). */
  at?: Date;
  /** The first read (absent: published without a track). */
  dueAt?: Date;
  /** Fails instead of publishing. */
  fails?: boolean;
}

export function describeMetricsRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: MetricsRepository`, () => {
    const storage = useStorage(setup);
    const metrics = () => storage().repos.metrics;

    /** A post with one target per plan, each claimed then completed as planned. */
    async function publish(
      plans: PublishPlan[],
      owner: { userId?: string; accountId?: string } = {},
    ): Promise<{ post: PostWithTargets; tracks: MetricTrack[] }> {
      const post = await seedPost(storage().repos, {
        ...owner,
        platforms: plans.map((plan) => plan.platform ?? 'tiktok'),
        socialAccountIds: plans.map((plan) => plan.socialAccountId ?? newId()),
      });
      for (const [index, plan] of plans.entries()) {
        const target = post.targets[index];
        if (!target) throw new Error('no target');
        const at = plan.at ?? nextTime();
        const claimed = await storage().testing.claimTarget(target.id, plus(at, HOUR), at, false);
        if (!claimed) throw new Error('claim failed');
        const completion = plan.fails
          ? ({
              status: 'failed',
              errorCode: 'x',
              errorMessage: 'no',
              retryable: false,
              at,
            } as const)
          : {
              status: 'published' as const,
              platformPostId: `pp-${index}-${target.id.slice(0, 8)}`,
              platformUrl: null,
              at,
              ...(plan.dueAt ? { metricsDueAt: plan.dueAt } : {}),
            };
        if (!(await storage().repos.posts.completeTarget(target.id, completion))) {
          throw new Error('completion failed');
        }
      }
      return { post, tracks: await metrics().listByPost(post.id) };
    }

    /** One published target followed, due at `dueAt`. */
    async function oneTrack(dueAt: Date = plus(nextTime(), HOUR)): Promise<MetricTrack> {
      const [track] = (await publish([{ dueAt }])).tracks;
      if (!track) throw new Error('no track');
      return track;
    }

    /** Takes every track due by the end of the claim tests' window, far away. */
    const drain = async () => {
      while ((await metrics().claimDue(ANCIENT_END, 1_000, FAR)).length > 0);
    };

    const trackOf = async (track: MetricTrack) =>
      (await metrics().listByPost(track.postId)).find((t) => t.targetId === track.targetId);

    it('starts a pending track with a published completion that asks for one, only then', async () => {
      const connection = newId();
      const at = nextTime();
      const dueAt = plus(at, HOUR);
      const { post, tracks } = await publish([
        { dueAt, at, socialAccountId: connection, platform: 'youtube' },
        {},
        { fails: true },
      ]);
      const target = post.targets[0];
      expect(tracks).toEqual([
        {
          targetId: target?.id,
          postId: post.id,
          accountId: post.accountId,
          socialAccountId: connection,
          platform: 'youtube',
          platformPostId: `pp-0-${target?.id.slice(0, 8)}`,
          publishedAt: at,
          sandbox: false,
          state: 'pending',
          step: 0,
          dueAt,
          takenAt: null,
          metrics: null,
          error: null,
        },
      ]);
      expect(await metrics().listByPost(newId())).toEqual([]);
    });

    it('lists the tracks of a post by target id', async () => {
      const due = plus(nextTime(), HOUR);
      const { tracks } = await publish([{ dueAt: due }, { dueAt: due }, { dueAt: due }]);
      const ids = tracks.map((track) => track.targetId);
      expect(ids).toHaveLength(3);
      expect(ids).toEqual([...ids].sort());
    });

    it('claims the due tracks earliest first, up to the limit, under a lease', async () => {
      await drain();
      const t100 = await oneTrack(ancient(100));
      const t50 = await oneTrack(ancient(50));
      const t75 = await oneTrack(ancient(75));
      const t500 = await oneTrack(ancient(500));
      const ids = (tracks: MetricTrack[]) => tracks.map((track) => track.targetId);

      const first = await metrics().claimDue(ancient(100), 2, ancient(200));
      // As they were before the claim: the read pass measures lateness from it.
      expect(first).toEqual([t50, t75]);
      expect((await trackOf(t50))?.dueAt).toEqual(ancient(200));

      // Leased ones wait for their lease; the rest go in due order.
      expect(ids(await metrics().claimDue(ancient(150), 10, ancient(300)))).toEqual([
        t100.targetId,
      ]);
      expect(await metrics().claimDue(ancient(199), 10, FAR)).toEqual([]);
      const expired = await metrics().claimDue(ancient(250), 10, FAR);
      expect(ids(expired)).toEqual([t50.targetId, t75.targetId].sort());
      expect(expired.map((track) => track.dueAt)).toEqual([ancient(200), ancient(200)]);
      const last = await metrics().claimDue(ancient(600), 10, FAR);
      expect(ids(last)).toEqual([t100.targetId, t500.targetId]);
      expect(last.map((track) => track.dueAt)).toEqual([ancient(300), ancient(500)]);
      expect(await metrics().claimDue(ancient(600), 0, FAR)).toEqual([]);
    });

    it('never gives one track to two concurrent claims', async () => {
      await drain();
      const created = await Promise.all(
        Array.from({ length: 12 }, (_, i) => oneTrack(ancient(1_000 + i))),
      );
      const claims = await Promise.all(
        Array.from({ length: 4 }, () => metrics().claimDue(ancient(2_000), 5, FAR)),
      );
      const claimed = claims.flat().map((track) => track.targetId);
      expect(new Set(claimed).size).toBe(claimed.length);
      const rest = await metrics().claimDue(ancient(2_000), 100, FAR);
      expect([...claimed, ...rest.map((track) => track.targetId)].sort()).toEqual(
        created.map((track) => track.targetId).sort(),
      );
    });

    it('records a read: the snapshot appended, its numbers the latest (nulls kept)', async () => {
      const track = await oneTrack();
      const first = makeSnapshot(track.targetId, nextTime(), { views: 10, likes: 0 });
      const nextDue = plus(first.takenAt, 6 * HOUR);
      await metrics().record([
        updateOf(track, { state: 'fresh', step: 1, dueAt: nextDue, snapshot: first }),
      ]);
      expect(await trackOf(track)).toEqual({
        ...track,
        state: 'fresh',
        step: 1,
        dueAt: nextDue,
        takenAt: first.takenAt,
        metrics: metricsWith({ views: 10, likes: 0 }),
      });
      expect(await metrics().history(track.postId, null, { limit: 10 })).toEqual([first]);

      // A failed read: the state and error change, the numbers stay.
      const retry = plus(nextDue, HOUR);
      await metrics().record([
        updateOf(track, { state: 'stale', step: 1, dueAt: retry, error: 'rate limited' }),
      ]);
      const stale = await trackOf(track);
      expect(stale).toMatchObject({ state: 'stale', dueAt: retry, error: 'rate limited' });
      expect(stale?.metrics).toEqual(first.metrics);
      expect(stale?.takenAt).toEqual(first.takenAt);

      // Past 2^32, and the schedule over.
      const second = makeSnapshot(track.targetId, nextTime(), { views: 5_000_000_000 });
      await metrics().record([
        updateOf(track, { state: 'fresh', step: 6, dueAt: null, error: null, snapshot: second }),
      ]);
      expect(await trackOf(track)).toMatchObject({
        state: 'fresh',
        step: 6,
        dueAt: null,
        error: null,
        takenAt: second.takenAt,
        metrics: metricsWith({ views: 5_000_000_000 }),
      });
      expect(await metrics().history(track.postId, null, { limit: 10 })).toEqual([first, second]);
    });

    it('records many tracks at once: the last update of a track wins, unknown ones dropped', async () => {
      const a = await oneTrack();
      const b = await oneTrack();
      const readA = makeSnapshot(a.targetId, nextTime(), { views: 1 });
      const readB = makeSnapshot(b.targetId, nextTime(), { comments: 2 });
      const unknown = newId();
      await metrics().record([
        updateOf(a, { state: 'fresh', step: 1, snapshot: readA }),
        updateOf(b, { state: 'fresh', step: 1, snapshot: readB }),
        updateOf(a, { state: 'stale', step: 2, error: 'later' }),
        { ...updateOf(a), targetId: unknown, snapshot: makeSnapshot(unknown, nextTime()) },
      ]);
      expect(await trackOf(a)).toMatchObject({
        state: 'stale',
        step: 2,
        error: 'later',
        takenAt: readA.takenAt,
        metrics: readA.metrics,
      });
      expect(await trackOf(b)).toMatchObject({ state: 'fresh', metrics: readB.metrics });
      await metrics().record([]);
    });

    it('records all or nothing', async () => {
      const a = await oneTrack();
      const b = await oneTrack();
      const kept = makeSnapshot(b.targetId, nextTime(), { views: 3 });
      await metrics().record([updateOf(b, { state: 'fresh', snapshot: kept })]);
      const before = await trackOf(a);
      // The second update's snapshot id is taken: the call fails, the first update is not kept.
      const failing = metrics().record([
        updateOf(a, { state: 'fresh', snapshot: makeSnapshot(a.targetId, nextTime()) }),
        updateOf(b, { state: 'fresh', snapshot: { ...kept, takenAt: nextTime() } }),
      ]);
      await expect(failing).rejects.toThrow();
      expect(await trackOf(a)).toEqual(before);
      expect(await metrics().history(a.postId, null, { limit: 10 })).toEqual([]);
    });

    it('postpones claimed tracks, nothing else changed', async () => {
      const a = await oneTrack();
      const b = await oneTrack();
      const later = plus(nextTime(), 2 * HOUR);
      await metrics().postpone([
        { targetId: a.targetId, dueAt: later },
        { targetId: newId(), dueAt: later },
      ]);
      await metrics().postpone([]);
      expect(await trackOf(a)).toEqual({ ...a, dueAt: later });
      expect(await trackOf(b)).toEqual(b);
    });

    it('pages the history oldest first, of the post or of one target', async () => {
      const { post, tracks } = await publish([
        { dueAt: plus(nextTime(), HOUR) },
        { dueAt: plus(nextTime(), HOUR) },
      ]);
      const [a, b] = tracks as [MetricTrack, MetricTrack];
      const sameTime = nextTime();
      const reads = [
        makeSnapshot(a.targetId, nextTime(), { views: 1 }),
        makeSnapshot(b.targetId, sameTime, { views: 2 }),
        makeSnapshot(a.targetId, sameTime, { views: 3 }),
        makeSnapshot(b.targetId, nextTime(), { views: 4 }),
        makeSnapshot(a.targetId, nextTime(), { views: 5 }),
      ];
      for (const read of reads)
        await metrics().record([updateOf(a, { targetId: read.targetId, snapshot: read })]);
      const order = [...reads].sort(
        (x, y) => x.takenAt.getTime() - y.takenAt.getTime() || (x.id < y.id ? -1 : 1),
      );
      const page1 = await metrics().history(post.id, null, { limit: 2 });
      expect(page1).toEqual(order.slice(0, 2));
      const last1 = page1[1] as MetricSnapshot;
      const page2 = await metrics().history(post.id, null, { limit: 2, after: last1 });
      expect(page2).toEqual(order.slice(2, 4));
      const last2 = page2[1] as MetricSnapshot;
      expect(await metrics().history(post.id, null, { limit: 2, after: last2 })).toEqual(
        order.slice(4),
      );
      const ofA = order.filter((read) => read.targetId === a.targetId);
      expect(await metrics().history(post.id, a.targetId, { limit: 10 })).toEqual(ofA);
      expect(
        await metrics().history(post.id, a.targetId, {
          limit: 10,
          after: ofA[0] as MetricSnapshot,
        }),
      ).toEqual(ofA.slice(1));
      // A target is only found under its own post.
      const other = await oneTrack();
      expect(await metrics().history(other.postId, a.targetId, { limit: 10 })).toEqual([]);
      expect(await metrics().history(newId(), null, { limit: 10 })).toEqual([]);
    });

    it('makes due on request the tracks not read since, not gone, not due already', async () => {
      const future = plus(nextTime(), 100 * HOUR);
      const { post, tracks } = await publish(Array.from({ length: 5 }, () => ({ dueAt: future })));
      const [unread, readLately, gone, due, readLongAgo] = tracks as MetricTrack[] as [
        MetricTrack,
        MetricTrack,
        MetricTrack,
        MetricTrack,
        MetricTrack,
      ];
      const longAgo = nextTime();
      const readBefore = nextTime();
      const lately = nextTime();
      const now = nextTime();
      await metrics().record([
        updateOf(readLately, {
          state: 'fresh',
          snapshot: makeSnapshot(readLately.targetId, lately),
        }),
        updateOf(gone, { state: 'gone', dueAt: null }),
        updateOf(due, { dueAt: readBefore }),
        updateOf(readLongAgo, {
          state: 'fresh',
          step: 6,
          dueAt: null,
          snapshot: makeSnapshot(readLongAgo.targetId, longAgo),
        }),
      ]);
      const before = await metrics().listByPost(post.id);
      expect(await metrics().requestRefresh(post.id, now, readBefore)).toBe(2);
      const after = await metrics().listByPost(post.id);
      const asked = new Set([unread.targetId, readLongAgo.targetId]);
      expect(after).toEqual(
        before.map((track) => (asked.has(track.targetId) ? { ...track, dueAt: now } : track)),
      );
      expect(await metrics().requestRefresh(post.id, now, readBefore)).toBe(0);
      expect(await metrics().requestRefresh(newId(), now, readBefore)).toBe(0);
    });

    it('sums the latest numbers per UTC day of publication', async () => {
      const user = await seedUser(storage().repos);
      const owner = { userId: user.id, accountId: user.id };
      const [c1, c2] = [newId(), newId()];
      const utc = (text: string) => new Date(text);
      const due = plus(nextTime(), HOUR);
      const read = async (track: MetricTrack | undefined, values: Partial<MetricValues>) => {
        if (!track) throw new Error('no track');
        await metrics().record([
          updateOf(track, {
            state: 'fresh',
            snapshot: makeSnapshot(track.targetId, nextTime(), values),
          }),
        ]);
      };
      const day1 = await publish(
        [{ socialAccountId: c1, at: utc('2030-03-01T23:59:59.999Z'), dueAt: due }],
        owner,
      );
      await read(day1.tracks[0], { views: 10 });
      const day2 = await publish(
        [
          { socialAccountId: c1, at: utc('2030-03-02T00:00:00.000Z'), dueAt: due },
          { socialAccountId: c2, platform: 'youtube', at: utc('2030-03-02T10:00:00Z'), dueAt: due },
        ],
        owner,
      );
      const byConnection = (id: string) => day2.tracks.find((t) => t.socialAccountId === id);
      await read(byConnection(c1), { views: 5, likes: 3 });
      await read(byConnection(c2), { views: 7 });
      // Never read: counted as a post, adds no numbers.
      await publish(
        [{ socialAccountId: c2, platform: 'youtube', at: utc('2030-03-02T12:00:00Z'), dueAt: due }],
        owner,
      );
      // Outside the days asked for.
      for (const at of ['2030-02-28T23:59:59.999Z', '2030-03-04T00:00:00.000Z']) {
        const out = await publish([{ socialAccountId: c1, at: utc(at), dueAt: due }], owner);
        await read(out.tracks[0], { views: 1_000 });
      }
      const range = { accountId: user.id, from: utc('2030-03-01'), to: utc('2030-03-03') };

      expect(await metrics().daily(range)).toEqual([
        { date: '2030-03-01', posts: 1, metrics: metricsWith({ views: 10 }) },
        { date: '2030-03-02', posts: 2, metrics: metricsWith({ views: 12, likes: 3 }) },
      ]);
      expect(await metrics().daily({ ...range, socialAccountId: c2 })).toEqual([
        { date: '2030-03-02', posts: 2, metrics: metricsWith({ views: 7 }) },
      ]);
      expect(await metrics().daily({ ...range, platform: 'tiktok' })).toEqual([
        { date: '2030-03-01', posts: 1, metrics: metricsWith({ views: 10 }) },
        { date: '2030-03-02', posts: 1, metrics: metricsWith({ views: 5, likes: 3 }) },
      ]);
      expect(await metrics().daily({ ...range, socialAccountId: c2, platform: 'tiktok' })).toEqual(
        [],
      );
      expect(await metrics().daily({ ...range, accountId: newId() })).toEqual([]);
    });

    it('deletes up to `limit` snapshots taken before the cutoff', async () => {
      const track = await oneTrack();
      const reads = [ancient(10), ancient(20), ancient(30), nextTime()].map((at) =>
        makeSnapshot(track.targetId, at),
      );
      await metrics().record(reads.map((snapshot) => updateOf(track, { snapshot })));
      expect(await metrics().deleteSnapshotsBefore(ancient(25), 1)).toBe(1);
      expect(await metrics().deleteSnapshotsBefore(ancient(25), 0)).toBe(0);
      expect(await metrics().deleteSnapshotsBefore(ancient(25), 10)).toBe(1);
      expect(await metrics().deleteSnapshotsBefore(ancient(25), 10)).toBe(0);
      expect(await metrics().history(track.postId, null, { limit: 10 })).toEqual(reads.slice(2));
    });
  });
}
