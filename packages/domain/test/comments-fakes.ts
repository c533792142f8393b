// A scripted comments client for the domain's comment tests: comments listed from a list the
// test fills, replies appended to it (each counted), hide and delete recorded.
import type {
  CommentsListOutcome,
  PlatformComment,
  PlatformCommentsClient,
  ReplyOutcome,
} from '../src/index.ts';

export interface ScriptedComments {
  client: PlatformCommentsClient;
  /** What the platform holds under the post. */
  comments: PlatformComment[];
  /** Every reply call, in order. */
  replies: { platformCommentId: string; text: string; idempotencyKey: string }[];
  /** The next list answers this instead of the comments. */
  nextList: CommentsListOutcome | null;
  /** The next reply answers this (or throws it) instead of posting. */
  nextReply: ReplyOutcome | Error | null;
  /** Comments the platform deleted. */
  deleted: Set<string>;
}

let counter = 0;

export function comment(text: string, changes: Partial<PlatformComment> = {}): PlatformComment {
  counter += 1;
  return {
    platformCommentId: `c-${counter}`,
    parentPlatformId: null,
    author: { id: 'fan-1', name: 'A fan', handle: 'fan@example.social' },
    text,
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, counter)),
    hidden: false,
    mine: false,
    ...changes,
  };
}

export function scriptedComments(): ScriptedComments {
  const state: ScriptedComments = {
    comments: [],
    replies: [],
    nextList: null,
    nextReply: null,
    deleted: new Set(),
    client: undefined as unknown as PlatformCommentsClient,
  };
  state.client = {
    replyMaxLength: () => 20,
    can: (facts) => ({ reply: true, hide: false, delete: facts.mine }),
    cannot: (action) => `the scripted platform cannot ${action} that comment`,
    async list() {
      const answer = state.nextList;
      state.nextList = null;
      return answer ?? { kind: 'listed', comments: [...state.comments] };
    },
    async reply(request) {
      const scripted = state.nextReply;
      state.nextReply = null;
      if (scripted instanceof Error) throw scripted;
      if (scripted) return scripted;
      if (state.deleted.has(request.platformCommentId)) {
        return { kind: 'gone', message: 'Record not found' };
      }
      state.replies.push({
        platformCommentId: request.platformCommentId,
        text: request.text,
        idempotencyKey: request.idempotencyKey,
      });
      const posted = comment(request.text, {
        parentPlatformId: request.platformCommentId,
        mine: true,
        author: { id: 'me', name: 'Me', handle: 'me@example.social' },
      });
      state.comments.push(posted);
      return { kind: 'sent', comment: posted };
    },
    async findReply(request) {
      const found = state.comments.find(
        (c) =>
          c.mine && c.parentPlatformId === request.platformCommentId && c.text === request.text,
      );
      return found ? { kind: 'found', comment: found } : { kind: 'not_found' };
    },
    async delete(request) {
      state.deleted.add(request.platformCommentId);
      return { kind: 'done' };
    },
  };
  return state;
}
