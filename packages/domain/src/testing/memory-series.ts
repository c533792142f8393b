import type { PostSeriesRepository, SlotRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

export function memoryPostSeriesRepository(store: MemoryStore): PostSeriesRepository {
  const rows = () => store.tables.postSeries;
  const occurrencesOf = (seriesId: string) =>
    [...store.tables.seriesOccurrences.values()]
      .filter((occurrence) => occurrence.seriesId === seriesId)
      .sort((a, b) => a.occurrenceAt.getTime() - b.occurrenceAt.getTime());
  return {
    async insert(series) {
      store.insertUnique(rows(), series.id, series, 'post series');
    },
    async findById(id) {
      return copy(rows().get(id) ?? null);
    },
    async listNeedingOccurrences(now, ahead, limit) {
      const upcoming = (seriesId: string) =>
        occurrencesOf(seriesId).filter((o) => o.occurrenceAt.getTime() > now.getTime()).length;
      const active = [...rows().values()]
        .filter((series) => series.status === 'active' && upcoming(series.id) < ahead)
        .map((series) => ({
          series,
          lastOccurrenceAt: occurrencesOf(series.id).at(-1)?.occurrenceAt ?? null,
        }))
        .sort(
          (a, b) => (a.lastOccurrenceAt?.getTime() ?? 0) - (b.lastOccurrenceAt?.getTime() ?? 0),
        );
      return copy(active.slice(0, limit));
    },
    async claimOccurrence(seriesId, occurrenceAt, postId) {
      const key = `${seriesId}/${occurrenceAt.toISOString()}`;
      if (rows().get(seriesId)?.status !== 'active') return false;
      if (store.tables.seriesOccurrences.has(key)) return false;
      store.tables.seriesOccurrences.set(key, {
        seriesId,
        occurrenceAt: new Date(occurrenceAt),
        postId,
      });
      return true;
    },
    async listOccurrences(seriesId) {
      return copy(
        occurrencesOf(seriesId).map(({ occurrenceAt, postId }) => ({ occurrenceAt, postId })),
      );
    },
    async setStatus(id, from, to, at) {
      const series = rows().get(id);
      if (!series || !from.includes(series.status)) return false;
      series.status = to;
      series.updatedAt = new Date(at);
      return true;
    },
  };
}

export function memorySlotRepository(store: MemoryStore): SlotRepository {
  return {
    async put(set) {
      store.tables.slotSets.set(set.socialAccountId, copy(set));
    },
    async find(socialAccountId) {
      return copy(store.tables.slotSets.get(socialAccountId) ?? null);
    },
    async lock() {
      // MemoryUnitOfWork runs one unit of work at a time: holding is implied.
    },
    async scheduledTimes(socialAccountIds, from, to) {
      const wanted = new Set(socialAccountIds);
      const postIds = new Set(
        [...store.tables.targets.values()]
          .filter((target) => wanted.has(target.socialAccountId))
          .map((target) => target.postId),
      );
      return [...store.tables.posts.values()]
        .filter(
          (post) =>
            postIds.has(post.id) &&
            post.status !== 'cancelled' &&
            post.status !== 'rejected' &&
            post.scheduledAt !== null &&
            post.scheduledAt.getTime() > from.getTime() &&
            post.scheduledAt.getTime() <= to.getTime(),
        )
        .map((post) => new Date(post.scheduledAt as Date));
    },
  };
}
