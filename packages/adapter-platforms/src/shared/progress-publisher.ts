import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import {
  type CommentFinder,
  type CommentSender,
  publishWithFirstComment,
} from './first-comment.ts';
import { runPublish } from './outcome.ts';

/** What a publisher whose publish and resume are one run declares. */
export interface ProgressPublisherSpec<P> {
  platform: string;
  validate: PlatformPublisher['validate'];
  /** The progress a run stored (saveProgress), read back; null when there is none to use. */
  readProgress(state: Record<string, unknown> | null, mediaCount: number): P | null;
  /** One run: from scratch (`stored` null) or from what an earlier run stored. */
  run(request: PublishRequest, stored: P | null): Promise<PublishOutcome>;
  /** How a `first_comment` is posted on the published post (absent: the platform takes none). */
  comment?: { label: string; send: CommentSender; find?: CommentFinder };
}

/**
 * A publisher whose resume is its publish continued from the stored progress, both ending in an
 * outcome (runPublish: failures become outcomes, an abort is rethrown).
 */
export function progressPublisher<P>(spec: ProgressPublisherSpec<P>): PlatformPublisher {
  const { platform, validate, readProgress, run, comment } = spec;
  const runAll = (request: PublishRequest, main: () => Promise<PublishOutcome>) =>
    comment
      ? publishWithFirstComment(comment.label, request, comment.send, main, comment.find)
      : main();
  return {
    platform,
    validate,
    publish: (request) =>
      runPublish(request.signal, () => runAll(request, () => run(request, null))),
    resume: (request) =>
      runPublish(request.signal, () =>
        runAll(request, () =>
          run(request, readProgress(request.target.resumeState, request.post.mediaUrls.length)),
        ),
      ),
  };
}
