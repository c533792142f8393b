import type { CommentReply, StoredComment } from '../comments-model.ts';
import type { PostTarget } from '../model.ts';
import type { CommentsRepository } from '../ports/index.ts';
import { claimDueTracks, newReadTrack, requestTrackRefresh } from './memory-read-tracks.ts';
import { copy, type MemoryStore } from './memory-store.ts';

/** Newest first: created_at desc, then id desc (the keyset order of every comment list). */
const newestFirst = (a: StoredComment, b: StoredComment) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id);

const before = (comment: StoredComment, cursor?: { createdAt: Date; id: string }) =>
  !cursor ||
  comment.createdAt < cursor.createdAt ||
  (comment.createdAt.getTime() === cursor.createdAt.getTime() && comment.id < cursor.id);

/** Starts following a target's comments (what completeTarget does in PostgreSQL). */
export function trackComments(store: MemoryStore, target: PostTarget, dueAt: Date): void {
  if (store.tables.commentTracks.has(target.id)) return;
  const track = newReadTrack(store, target, dueAt);
  if (track) store.tables.commentTracks.set(target.id, { ...track, readAt: null });
}

export function memoryCommentsRepository(store: MemoryStore): CommentsRepository {
  const tracks = () => store.tables.commentTracks;
  const comments = () => store.tables.comments;
  const replies = () => store.tables.commentReplies;
  /** `sending`, recorded before `intentBefore`, and held by no look-up at `now`. */
  const abandoned = (reply: CommentReply, intentBefore: Date, now: Date) => {
    const heldUntil = store.tables.replyLookups.get(reply.id);
    return (
      reply.state === 'sending' && reply.intentAt < intentBefore && !(heldUntil && heldUntil > now)
    );
  };
  /** A comment as read back: its parent's id filled in when we hold the parent. */
  const withParent = (comment: StoredComment): StoredComment => {
    const parent = comment.parentPlatformId
      ? [...comments().values()].find(
          (c) =>
            c.targetId === comment.targetId && c.platformCommentId === comment.parentPlatformId,
        )
      : undefined;
    return { ...copy(comment), parentId: parent?.id ?? null };
  };
  return {
    async claimDue(now, limit, leaseUntil) {
      return claimDueTracks(tracks(), now, limit, leaseUntil);
    },
    async record(updates) {
      for (const update of updates) {
        const track = tracks().get(update.targetId);
        if (!track) continue;
        track.state = update.state;
        track.step = update.step;
        track.dueAt = update.dueAt ? new Date(update.dueAt) : null;
        track.error = update.error;
        if (update.readAt) track.readAt = new Date(update.readAt);
      }
    },
    async postpone(postponements) {
      for (const { targetId, dueAt } of postponements) {
        const track = tracks().get(targetId);
        if (track) track.dueAt = new Date(dueAt);
      }
    },
    async tracksOfPost(postId) {
      return [...tracks().values()]
        .filter((track) => track.postId === postId)
        .sort((a, b) => a.targetId.localeCompare(b.targetId))
        .map((track) => copy(track));
    },
    async requestRefresh(postId, now, readBefore) {
      return requestTrackRefresh(tracks(), { postId, now, readBefore }, (track) => track.readAt);
    },
    async insertNew(list) {
      const stored: StoredComment[] = [];
      for (const comment of list) {
        if (!store.tables.targets.has(comment.targetId)) continue;
        const known = [...comments().values()].some(
          (c) =>
            c.targetId === comment.targetId && c.platformCommentId === comment.platformCommentId,
        );
        if (known || comments().has(comment.id)) continue;
        comments().set(comment.id, { ...copy(comment), parentId: null });
        stored.push(comment);
      }
      return stored.map(withParent);
    },
    async findById(id) {
      const comment = comments().get(id);
      return comment ? withParent(comment) : null;
    },
    async findByPlatformId(targetId, platformCommentId) {
      const comment = [...comments().values()].find(
        (c) => c.targetId === targetId && c.platformCommentId === platformCommentId,
      );
      return comment ? withParent(comment) : null;
    },
    async listByPost(postId, targetId, page) {
      return [...comments().values()]
        .filter((c) => c.postId === postId && (targetId === null || c.targetId === targetId))
        .filter((c) => before(c, page.before))
        .sort(newestFirst)
        .slice(0, page.limit)
        .map(withParent);
    },
    async inbox(query) {
      return [...comments().values()]
        .filter((c) => c.accountId === query.accountId)
        .filter((c) => !query.platform || c.platform === query.platform)
        .filter((c) => !query.unreadOnly || !c.read)
        .filter((c) => before(c, query.before))
        .sort(newestFirst)
        .slice(0, query.limit)
        .map(withParent);
    },
    async markRead(accountId, ids) {
      let changed = 0;
      for (const id of new Set(ids)) {
        const comment = comments().get(id);
        if (!comment || comment.accountId !== accountId || comment.read) continue;
        comment.read = true;
        changed++;
      }
      return changed;
    },
    async setHidden(id, hidden) {
      const comment = comments().get(id);
      if (comment) comment.hidden = hidden;
    },
    async delete(id) {
      comments().delete(id);
      for (const reply of replies().values()) {
        if (reply.replyCommentId === id) reply.replyCommentId = null;
      }
      for (const [replyId, reply] of replies()) {
        if (reply.commentId === id) replies().delete(replyId);
      }
    },
    async createReply(reply) {
      const existing = [...replies().values()].find(
        (r) => r.accountId === reply.accountId && r.idempotencyKey === reply.idempotencyKey,
      );
      if (existing) return { reply: copy(existing), created: false };
      replies().set(reply.id, copy(reply));
      return { reply: copy(reply), created: true };
    },
    async findReply(accountId, idempotencyKey) {
      const found = [...replies().values()].find(
        (r) => r.accountId === accountId && r.idempotencyKey === idempotencyKey,
      );
      return found ? copy(found) : null;
    },
    async endReply(id, end) {
      const reply = replies().get(id);
      if (reply?.state !== 'sending') return false;
      reply.state = end.state;
      reply.platformCommentId = end.platformCommentId ?? null;
      reply.replyCommentId = end.replyCommentId ?? null;
      reply.error = end.error ?? null;
      return true;
    },
    async restartReply(id, intentAt) {
      const reply = replies().get(id);
      if (reply?.state !== 'failed') return false;
      reply.state = 'sending';
      reply.intentAt = new Date(intentAt);
      reply.error = null;
      store.tables.replyLookups.delete(id);
      return true;
    },
    async claimAbandonedReplies(intentBefore, now, limit, holdUntil) {
      const claimed = [...replies().values()]
        .filter((reply) => abandoned(reply, intentBefore, now))
        .sort((a, b) => a.intentAt.getTime() - b.intentAt.getTime() || a.id.localeCompare(b.id))
        .slice(0, Math.max(0, limit));
      for (const reply of claimed) store.tables.replyLookups.set(reply.id, new Date(holdUntil));
      return claimed.map((reply) => copy(reply));
    },
    async claimReplyLookup(id, intentBefore, now, holdUntil) {
      const reply = replies().get(id);
      if (!reply || !abandoned(reply, intentBefore, now)) return false;
      store.tables.replyLookups.set(id, new Date(holdUntil));
      return true;
    },
  };
}
