import { TERMINAL_POST_STATUSES } from '../model.ts';
import type { MediaRepository } from '../ports/index.ts';
import { copy, type MemoryStore } from './memory-store.ts';

const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export function memoryMediaRepository(store: MemoryStore): MediaRepository {
  const rows = () => store.tables.media;
  const postsOf = (mediaId: string) =>
    [...store.tables.postMedia.values()]
      .filter((link) => link.mediaId === mediaId)
      .map((link) => store.tables.posts.get(link.postId))
      .filter((post) => post !== undefined);
  const inUse = (mediaId: string) =>
    postsOf(mediaId).some((post) => !TERMINAL_POST_STATUSES.includes(post.status));
  return {
    async insert(media) {
      store.insertUnique(rows(), media.id, media, 'media');
    },
    async findById(id) {
      return copy(rows().get(id) ?? null);
    },
    async findByNames(names) {
      return copy([...rows().values()].filter((media) => names.includes(media.name)));
    },
    async listByAccount(accountId, { limit, before }) {
      return copy(
        [...rows().values()]
          .filter((media) => media.accountId === accountId)
          .filter((media) => !before || newestFirst(before, media) < 0)
          .sort(newestFirst)
          .slice(0, limit),
      );
    },
    async totalBytesByAccount(accountId) {
      return [...rows().values()]
        .filter((media) => media.accountId === accountId)
        .reduce((sum, media) => sum + media.size, 0);
    },
    async inUse(id) {
      return inUse(id);
    },
    async link(postId, names) {
      for (const media of rows().values()) {
        if (!names.includes(media.name)) continue;
        store.tables.postMedia.set(`${postId}/${media.id}`, { postId, mediaId: media.id });
        media.expiresAt = null;
      }
    },
    async settleExpiry(retentionMs) {
      let settled = 0;
      for (const media of rows().values()) {
        if (media.expiresAt !== null || inUse(media.id)) continue;
        const last = Math.max(
          media.createdAt.getTime(),
          ...postsOf(media.id).map((post) => post.updatedAt.getTime()),
        );
        media.expiresAt = new Date(last + retentionMs);
        settled++;
      }
      return settled;
    },
    async listExpired(now, limit) {
      return copy(
        [...rows().values()]
          .filter((media) => media.expiresAt !== null && media.expiresAt <= now)
          .filter((media) => !inUse(media.id))
          .sort((a, b) => (a.expiresAt?.getTime() ?? 0) - (b.expiresAt?.getTime() ?? 0))
          .slice(0, limit),
      );
    },
    async delete(id) {
      for (const [key, link] of store.tables.postMedia) {
        if (link.mediaId === id) store.tables.postMedia.delete(key);
      }
      return rows().delete(id);
    },
  };
}
