/**
 * Sandbox comments: a sandbox target never calls its platform, yet a client built against it
 * needs comments to list, answer, hide and delete. So each sandbox target gets made-up comments
 * that arrive with age (one at publication, one an hour later, one at 6 hours), the
 * same for the same target, and a sandbox client answers replies, hides and deletes without a
 * call. They are stored and announced (`comment.received`) like real ones.
 */
import type { CoreDeps } from '../deps.ts';
import type { Platform } from '../model.ts';
import type { PlatformComment, PlatformCommentsClient } from '../ports/index.ts';

const MINUTE = 60_000;
/** When each made-up comment arrives, after publication. */
const ARRIVALS_MS = [0, 60 * MINUTE, 360 * MINUTE];

/** The made-up comments of a sandbox target published at `publishedAt`, as of `at`. */
export function sandboxComments(
  target: { targetId: string; publishedAt: Date },
  at: Date,
): PlatformComment[] {
  const tag = target.targetId.slice(0, 8);
  return ARRIVALS_MS.flatMap((offset, index) => {
    const createdAt = new Date(target.publishedAt.getTime() + offset);
    if (createdAt > at) return [];
    const n = index + 1;
    return [
      {
        platformCommentId: `sandbox-comment-${tag}-${n}`,
        parentPlatformId: null,
        author: { id: `sandbox-fan-${n}`, name: `Sandbox Fan ${n}`, handle: `sandbox_fan_${n}` },
        text: `Sandbox comment ${n}`,
        createdAt,
        hidden: false,
        mine: false,
      },
    ];
  });
}

/** Answers like a platform that allows everything, without calling anything. */
export const SANDBOX_COMMENTS_CLIENT: PlatformCommentsClient = {
  replyMaxLength: () => 500,
  can: () => ({ reply: true, hide: true, delete: true }),
  list: async () => ({ kind: 'listed', comments: [] }),
  reply: async (request) => ({
    kind: 'sent',
    comment: {
      platformCommentId: `sandbox-reply-${request.idempotencyKey}`,
      parentPlatformId: request.platformCommentId,
      author: { id: request.connection.externalId, name: null, handle: null },
      text: request.text,
      createdAt: request.intentAt,
      hidden: false,
      mine: true,
    },
  }),
  // A sandbox reply is made in the same step that records it: a lost answer never happens.
  findReply: async () => ({ kind: 'not_found' }),
  hide: async () => ({ kind: 'done' }),
  delete: async () => ({ kind: 'done' }),
};

/** The client that serves a comment or target: the sandbox one for sandbox targets. */
export function commentsClientFor(
  deps: Pick<CoreDeps, 'platforms'>,
  platform: Platform,
  sandbox: boolean,
): PlatformCommentsClient | undefined {
  return sandbox ? SANDBOX_COMMENTS_CLIENT : deps.platforms.commentsClient(platform);
}
