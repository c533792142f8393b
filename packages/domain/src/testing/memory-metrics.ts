import { type DailyMetrics, METRIC_NAMES, noMetrics } from '../metrics-model.ts';
import type { PostTarget } from '../model.ts';
import type { MetricsRepository } from '../ports/index.ts';
import { claimDueTracks, newReadTrack, requestTrackRefresh } from './memory-read-tracks.ts';
import { copy, type MemoryStore } from './memory-store.ts';

/** Starts following a target that just published (what completeTarget does in PostgreSQL). */
export function trackMetrics(store: MemoryStore, target: PostTarget, dueAt: Date): void {
  if (store.tables.metricTracks.has(target.id)) return;
  const track = newReadTrack(store, target, dueAt);
  if (track) store.tables.metricTracks.set(target.id, { ...track, takenAt: null, metrics: null });
}

export function memoryMetricsRepository(store: MemoryStore): MetricsRepository {
  const tracks = () => store.tables.metricTracks;
  const snapshots = () => store.tables.metricSnapshots;
  return {
    async claimDue(now, limit, leaseUntil) {
      return claimDueTracks(tracks(), now, limit, leaseUntil);
    },
    async record(updates) {
      // All or none, as one statement: a snapshot id already taken fails the call up front.
      const ids = new Set<string>();
      for (const { targetId, snapshot } of updates) {
        if (!snapshot || !tracks().has(targetId)) continue;
        if (snapshots().has(snapshot.id) || ids.has(snapshot.id)) {
          throw new Error(`metric snapshot ${snapshot.id} exists already`);
        }
        ids.add(snapshot.id);
      }
      for (const update of updates) {
        const track = tracks().get(update.targetId);
        if (!track) continue;
        track.state = update.state;
        track.step = update.step;
        track.dueAt = update.dueAt ? new Date(update.dueAt) : null;
        track.error = update.error;
        if (update.snapshot) {
          snapshots().set(update.snapshot.id, copy(update.snapshot));
          track.takenAt = new Date(update.snapshot.takenAt);
          track.metrics = copy(update.snapshot.metrics);
        }
      }
    },
    async postpone(postponements) {
      for (const { targetId, dueAt } of postponements) {
        const track = tracks().get(targetId);
        if (track) track.dueAt = new Date(dueAt);
      }
    },
    async listByPost(postId) {
      return [...tracks().values()]
        .filter((track) => track.postId === postId)
        .sort((a, b) => a.targetId.localeCompare(b.targetId))
        .map((track) => copy(track));
    },
    async history(postId, targetId, page) {
      const ofPost = new Set(
        [...tracks().values()].filter((t) => t.postId === postId).map((t) => t.targetId),
      );
      const after = page.after;
      return [...snapshots().values()]
        .filter((s) => ofPost.has(s.targetId) && (targetId === null || s.targetId === targetId))
        .filter(
          (s) =>
            !after ||
            s.takenAt > after.takenAt ||
            (s.takenAt.getTime() === after.takenAt.getTime() && s.id > after.id),
        )
        .sort((a, b) => a.takenAt.getTime() - b.takenAt.getTime() || a.id.localeCompare(b.id))
        .slice(0, page.limit)
        .map((s) => copy(s));
    },
    async requestRefresh(postId, now, readBefore) {
      return requestTrackRefresh(tracks(), { postId, now, readBefore }, (track) => track.takenAt);
    },
    async daily(query) {
      const days = new Map<string, { posts: Set<string>; metrics: DailyMetrics['metrics'] }>();
      const last = query.to.getTime() + 86_400_000;
      for (const track of tracks().values()) {
        const at = track.publishedAt.getTime();
        if (track.accountId !== query.accountId || at < query.from.getTime() || at >= last)
          continue;
        if (query.socialAccountId && track.socialAccountId !== query.socialAccountId) continue;
        if (query.platform && track.platform !== query.platform) continue;
        const date = track.publishedAt.toISOString().slice(0, 10);
        const day = days.get(date) ?? { posts: new Set<string>(), metrics: noMetrics() };
        day.posts.add(track.postId);
        for (const name of METRIC_NAMES) {
          const value = track.metrics?.[name] ?? null;
          if (value !== null) day.metrics[name] = (day.metrics[name] ?? 0) + value;
        }
        days.set(date, day);
      }
      return [...days.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([date, day]) => ({ date, posts: day.posts.size, metrics: day.metrics }));
    },
    async deleteSnapshotsBefore(cutoff, limit) {
      let deleted = 0;
      for (const [id, snapshot] of snapshots()) {
        if (deleted >= limit) break;
        if (snapshot.takenAt < cutoff) {
          snapshots().delete(id);
          deleted++;
        }
      }
      return deleted;
    },
  };
}
