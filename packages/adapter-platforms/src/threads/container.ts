// A Threads container: made (text, image, video, or a carousel of finished items) and waited
// for until Threads has processed it; nothing is visible until it is published.
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { AuthSession } from '../shared/auth.ts';
import { mediaKindOf } from '../shared/media.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import type { createThreadsApi } from './api.ts';

/** What the container calls need (a publish run has it; so does a first comment). */
export interface ContainerCalls {
  request: PublishRequest;
  runtime: PublisherRuntime;
  auth: AuthSession;
  api: ReturnType<typeof createThreadsApi>;
}

/** One post of the chain: its text, its media and the post it replies to. */
export interface Part {
  text: string;
  mediaUrls: string[];
  replyTo: string | null;
}

/**
 * Waits until a container is FINISHED (videos take a while; Threads may also not know a
 * container made a moment ago). PUBLISHED: an earlier run published it and its answer was
 * lost. ERROR and EXPIRED end the publish: a resume would find the container the same.
 */
export function settle(
  calls: ContainerCalls,
  containerId: string,
  startedAt: number,
): Promise<'FINISHED' | 'PUBLISHED'> {
  const { runtime, auth, api } = calls;
  return pollUntil({
    runtime,
    startedAt,
    signal: calls.request.signal,
    what: `Threads container ${containerId}`,
    check: async () => {
      const { status, errorMessage } = await auth.call((token) =>
        api.containerStatus(token, containerId),
      );
      if (status === 'FINISHED' || status === 'PUBLISHED') return status;
      if (status === 'ERROR' || status === 'EXPIRED') {
        throw fail(
          status === 'ERROR' ? 'media_processing_failed' : 'container_expired',
          `Threads container ${containerId} ${status}${errorMessage ? `: ${errorMessage}` : ''}`,
          false,
        );
      }
      return undefined; // IN_PROGRESS
    },
  });
}

/** POST /{user-id}/threads: TEXT, IMAGE or VIDEO, or a CAROUSEL of finished items. */
export async function makeContainer(calls: ContainerCalls, part: Part): Promise<string> {
  const { request, auth, api } = calls;
  const userId = request.connection.externalId;
  const create = (params: Record<string, string>) =>
    auth.call((token) => api.createContainer(token, userId, params));
  const own: Record<string, string> = {
    ...(part.text === '' ? {} : { text: part.text }),
    ...(part.replyTo ? { reply_to_id: part.replyTo } : {}),
  };
  const [single] = part.mediaUrls;
  if (single === undefined) return create({ media_type: 'TEXT', ...own });
  if (part.mediaUrls.length === 1) return create({ ...mediaParams(single), ...own });
  // Carousel items are invisible until the carousel is published: made again on a resume.
  const children: string[] = [];
  for (const url of part.mediaUrls) {
    children.push(await create({ ...mediaParams(url), is_carousel_item: 'true' }));
  }
  const startedAt = Date.now();
  for (const child of children) {
    if ((await settle(calls, child, startedAt)) === 'PUBLISHED') {
      throw fail('invalid_state', `carousel item ${child} is already published`, false);
    }
  }
  return create({ media_type: 'CAROUSEL', children: children.join(','), ...own });
}

const mediaParams = (url: string): Record<string, string> =>
  mediaKindOf(url) === 'photo'
    ? { media_type: 'IMAGE', image_url: url }
    : { media_type: 'VIDEO', video_url: url };
