import { createHash } from 'node:crypto';
import type {
  Platform,
  PlatformPublisher,
  PostDraft,
  Problem,
  PublishOutcome,
  PublishRequest,
} from '@social-publisher/domain';
import type { MockedBehaviour } from '../config.ts';
import { codePointLength } from '../shared/media.ts';

/** Text limits of the real APIs (PLATFORMS.md), checked even while the publishers are mocked. */
const CONTENT_MAX: Partial<Record<Platform, number>> = {
  twitter: 280, // X counts URLs as 23 and some scripts double; plain code points here
  linkedin: 3000,
  facebook: 63_206,
};

/**
 * twitter, linkedin and facebook are mocked (SPEC.md): no network. `behaviour` decides each post's
 * fate so tests can exercise the partial/failed paths: `ok` publishes with a synthetic id derived
 * from the target (stable: resume returns the same id), `transient` fails retryably, `permanent`
 * fails for good.
 */
export function createMockedPublisher(
  platform: Platform,
  behaviour: (platform: Platform, post: PublishRequest['post']) => MockedBehaviour = () => 'ok',
): PlatformPublisher {
  function publish(request: PublishRequest): Promise<PublishOutcome> {
    if (request.signal.aborted) return Promise.reject(request.signal.reason);
    switch (behaviour(platform, request.post)) {
      case 'transient':
        return Promise.resolve({
          kind: 'failed',
          code: 'mock_transient',
          message: `${platform} (mocked) failed transiently`,
          retryable: true,
        });
      case 'permanent':
        return Promise.resolve({
          kind: 'failed',
          code: 'mock_permanent',
          message: `${platform} (mocked) rejected the post`,
          retryable: false,
        });
      default: {
        const digest = createHash('sha256').update(request.target.id).digest('hex').slice(0, 16);
        return Promise.resolve({
          kind: 'published',
          platformPostId: `mock-${platform}-${digest}`,
          platformUrl: null,
        });
      }
    }
  }

  return {
    platform,
    validate(draft: PostDraft): Problem[] {
      const max = CONTENT_MAX[platform];
      if (max !== undefined && codePointLength(draft.content) > max) {
        return [
          { field: 'content', message: `${platform} posts are limited to ${max} characters` },
        ];
      }
      return [];
    },
    publish,
    resume: publish,
  };
}
