import { TERMINAL_POST_STATUSES, TERMINAL_TARGET_STATUSES } from '../model.ts';
import type { PostRepository } from '../ports/index.ts';
import type { MemoryStore } from './memory-store.ts';

/** Deletes a post and what cascades from it in PostgreSQL (targets, deliveries, numbers, links). */
function deletePost(store: MemoryStore, postId: string): void {
  const { tables } = store;
  tables.posts.delete(postId);
  const deleteWhere = <T>(table: Map<string, T>, gone: (row: T) => boolean) => {
    for (const [key, row] of table) if (gone(row)) table.delete(key);
  };
  const targetIds = new Set<string>();
  deleteWhere(tables.targets, (target) => {
    if (target.postId !== postId) return false;
    targetIds.add(target.id);
    return true;
  });
  const deliveryIds = new Set<string>();
  deleteWhere(tables.deliveries, (delivery) => {
    if (delivery.postId !== postId) return false;
    deliveryIds.add(delivery.id);
    return true;
  });
  deleteWhere(tables.attempts, (attempt) => deliveryIds.has(attempt.deliveryId));
  deleteWhere(tables.metricTracks, (track) => targetIds.has(track.targetId));
  deleteWhere(tables.metricSnapshots, (snapshot) => targetIds.has(snapshot.targetId));
  const commentIds = new Set<string>();
  deleteWhere(tables.comments, (comment) => {
    if (!targetIds.has(comment.targetId)) return false;
    commentIds.add(comment.id);
    return true;
  });
  deleteWhere(tables.commentReplies, (reply) => commentIds.has(reply.commentId));
  deleteWhere(tables.commentTracks, (track) => targetIds.has(track.targetId));
  deleteWhere(tables.postMedia, (link) => link.postId === postId);
}

export function memoryPostRetention(
  store: MemoryStore,
): Pick<PostRepository, 'deleteFinishedBefore'> {
  return {
    async deleteFinishedBefore(cutoff, limit) {
      const targets = [...store.tables.targets.values()];
      const finished = [...store.tables.posts.values()]
        .filter(
          (post) =>
            TERMINAL_POST_STATUSES.includes(post.status) &&
            post.updatedAt.getTime() < cutoff.getTime() &&
            targets.every(
              (target) =>
                target.postId !== post.id || TERMINAL_TARGET_STATUSES.includes(target.status),
            ),
        )
        .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())
        .slice(0, limit);
      for (const post of finished) deletePost(store, post.id);
      return finished.length;
    },
  };
}
