import type { PublishOutcome, PublishRequest, ResumeState } from '@social-publisher/domain';
import { afterMainPost } from './follow-ups.ts';
import { outcomeUnknown, sendOnce } from './intent.ts';
import { PublishFailure } from './outcome.ts';

/** The intent step of the comment. */
export const FIRST_COMMENT = 'first_comment';
/** Where the main post's answer is kept in the resume state while its comment is pending. */
const PUBLISHED_KEY = 'publishedBeforeComment';

/** Posts `message` as a comment on the platform's post `postId`; returns the comment's id. */
export type CommentSender = (
  request: PublishRequest,
  postId: string,
  message: string,
) => Promise<string>;

/**
 * Finds the comment `message` an earlier run may have posted on `postId` (its id, or null when
 * it is not there), where the platform lists a post's comments.
 */
export type CommentFinder = (
  request: PublishRequest,
  postId: string,
  message: string,
) => Promise<string | null>;

type Published = Extract<PublishOutcome, { kind: 'published' }>;

/** The main post an earlier run published and stored before sending its comment. */
function publishedBefore(state: ResumeState | null): Published | null {
  const kept = state?.[PUBLISHED_KEY] as Record<string, unknown> | undefined;
  if (!kept || typeof kept.platformPostId !== 'string') return null;
  const platformUrl = typeof kept.platformUrl === 'string' ? kept.platformUrl : null;
  const threadPostIds = Array.isArray(kept.threadPostIds)
    ? kept.threadPostIds.filter((id): id is string => typeof id === 'string')
    : undefined;
  return {
    kind: 'published',
    platformPostId: kept.platformPostId,
    platformUrl,
    ...(threadPostIds ? { threadPostIds } : {}),
  };
}

/**
 * Publishes the post (`main`, skipped when an earlier run already did), then its
 * `first_comment`. The post's id is stored before the comment is sent (a resume never posts
 * the post again), and the comment goes under an intent: a run that stopped after sending it
 * looks for it with `find` (found: that is the comment; absent: it was never made and is sent),
 * or without one ends `outcome_unknown` rather than comment twice. A comment that fails leaves
 * the target failed with the post's id kept and shown.
 */
export async function publishWithFirstComment(
  label: string,
  request: PublishRequest,
  send: CommentSender,
  main: () => Promise<PublishOutcome>,
  find?: CommentFinder,
): Promise<PublishOutcome> {
  const kept = publishedBefore(request.target.resumeState);
  const outcome = kept ?? (await main());
  const message = request.post.firstComment;
  if (outcome.kind !== 'published' || message === null || message === '') return outcome;
  // A platform with both (Threads) keeps its follow-ups' ids with the post's.
  const { platformPostId, platformUrl, threadPostIds } = outcome;
  const published = { platformPostId, platformUrl, ...(threadPostIds ? { threadPostIds } : {}) };
  if (kept === null) await request.saveProgress({ [PUBLISHED_KEY]: published });
  return afterMainPost(
    request.signal,
    () => published,
    async () => {
      const intent = request.intent;
      if (intent?.step === FIRST_COMMENT) {
        if (!find) throw new PublishFailure(outcomeUnknown(label, intent));
        const found = await find(request, platformPostId, message);
        if (found !== null) return { ...outcome, firstCommentId: found };
      }
      const id = await sendOnce(request, FIRST_COMMENT, () =>
        send(request, platformPostId, message),
      );
      return { ...outcome, firstCommentId: id };
    },
  );
}
