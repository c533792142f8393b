import { type Post, type PostTarget, SANDBOX_OUTCOMES, type SandboxOutcome } from '../model.ts';
import type { PublishOutcome } from '../ports/index.ts';

/** Transient sandbox failures before the target publishes. */
const TRANSIENT_FAILURES = 2;

function requestedOutcome(post: Post, target: PostTarget): SandboxOutcome {
  const options = post.platformOptions[target.platform];
  const asked = options?.sandbox_outcome;
  return (SANDBOX_OUTCOMES as readonly unknown[]).includes(asked)
    ? (asked as SandboxOutcome)
    : 'published';
}

/**
 * A sandbox target never calls a platform (docs/connect.md#sandbox-connections): it publishes with a
 * `sandbox-` id, or fails as the post's platform_options ask, so clients can test every path.
 * `target.attempts` counts this claim, so `transient` fails the first two claims.
 */
export function sandboxOutcome(post: Post, target: PostTarget): PublishOutcome {
  switch (requestedOutcome(post, target)) {
    case 'failed':
      return {
        kind: 'failed',
        code: 'sandbox_failed',
        message: 'sandbox connection: failed as platform_options asked (sandbox_outcome: failed)',
        retryable: false,
      };
    case 'transient':
      if (target.attempts <= TRANSIENT_FAILURES) {
        return {
          kind: 'failed',
          code: 'sandbox_transient',
          message: `sandbox connection: transient failure ${target.attempts} of ${TRANSIENT_FAILURES} (sandbox_outcome: transient)`,
          retryable: true,
        };
      }
      break;
    case 'published':
      break;
  }
  return { kind: 'published', platformPostId: `sandbox-${target.id}`, platformUrl: null };
}
