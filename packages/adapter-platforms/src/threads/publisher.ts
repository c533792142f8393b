import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { afterMainPost } from '../shared/follow-ups.ts';
import { intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { fail } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { createThreadsApi } from './api.ts';
import { findPublished } from './lookup.ts';
import { freshProgress, readProgress, type ThreadsProgress } from './progress.ts';
import type { ThreadsSettings } from './settings.ts';
import { validateThreads } from './validate.ts';

const LABEL = 'Threads';
/** The intent step of the main post's threads_publish. */
const PUBLISH_POST = 'publish';
/** The intent step of follow-up n's threads_publish (`thread_0`, ...): each looked for on its own. */
const FOLLOW_UP = 'thread_';

type Api = ReturnType<typeof createThreadsApi>;

/** One post of the chain: its text, its media and the post it replies to. */
interface Part {
  text: string;
  mediaUrls: string[];
  replyTo: string | null;
}

export function createThreadsPublisher(
  config: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  /**
   * Waits until a container is FINISHED (videos take a while; Threads may also not know a
   * container made a moment ago). PUBLISHED: an earlier run published it and its answer was
   * lost. ERROR and EXPIRED end the publish: a resume would find the container the same.
   */
  function settle(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    containerId: string,
    startedAt: number,
  ): Promise<'FINISHED' | 'PUBLISHED'> {
    return pollUntil({
      intervalMs: runtime.pollIntervalMs,
      timeoutMs: runtime.pollTimeoutMs,
      startedAt,
      signal: request.signal,
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
  async function makeContainer(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    part: Part,
  ): Promise<string> {
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
      if ((await settle(request, api, auth, child, startedAt)) === 'PUBLISHED') {
        throw fail('invalid_state', `carousel item ${child} is already published`, false);
      }
    }
    return create({ media_type: 'CAROUSEL', children: children.join(','), ...own });
  }

  async function run(request: PublishRequest, stored: ThreadsProgress | null) {
    // Threads long-lived tokens are renewed ahead by the worker (th_refresh_token), not with a
    // refresh token here: a 190 ends the publish with connection_expired.
    const auth = new AuthSession(request, null, LABEL);
    const api = createThreadsApi(config, runtime, request.signal);
    const userId = request.connection.externalId;
    const progress = stored ?? freshProgress();
    const save = () => request.saveProgress(structuredClone(progress) as never);
    const thread = request.post.thread;

    /**
     * Publishes part `index` (0 the main post, n follow-up n-1) once: an intent left by an
     * earlier run is looked up first, a stored container is followed rather than made again,
     * and threads_publish goes under an intent.
     */
    async function publishPart(index: number, part: Part): Promise<string> {
      const step = index === 0 ? PUBLISH_POST : `${FOLLOW_UP}${index - 1}`;
      const edge = index === 0 ? 'threads' : 'replies';
      const lookup = (intent: PublishIntent) =>
        findPublished({ auth, api, userId, text: part.text, intent, edge });
      const sentBefore = intentAt(request, step);
      if (sentBefore !== null) {
        const found = await lookup(sentBefore);
        if (found !== undefined) return found;
      }
      let container = progress.container?.part === index ? progress.container : null;
      if (container === null) {
        const id = await makeContainer(request, api, auth, part);
        container = { part: index, id, pollStartedAt: Date.now() };
        progress.container = container;
        await save();
      }
      const { id: containerId } = container;
      const state = await settle(request, api, auth, containerId, container.pollStartedAt);
      if (state === 'PUBLISHED') {
        // Published by a run whose answer and intent were both lost: only the profile knows.
        const since = { step, at: new Date(container.pollStartedAt) };
        const found = await lookup(since);
        if (found !== undefined) return found;
        throw fail(
          'outcome_unknown',
          `Threads container ${containerId} is already published and its post was not found among the profile's latest: check the profile`,
          false,
        );
      }
      // Only top-level posts count against the 250 a day; replies have their own quota.
      if (index === 0) await request.beforeCountedCall();
      return sendOnce(request, step, () =>
        auth.call((token) => api.publish(token, userId, containerId)),
      );
    }

    if (progress.postId === null) {
      const postId = await publishPart(0, {
        text: request.post.content,
        mediaUrls: request.post.mediaUrls,
        replyTo: null,
      });
      progress.postId = postId;
      progress.postUrl = await permalinkOf(request, api, auth, postId);
      progress.container = null;
      if (thread.length > 0) await save();
    }
    const postId = progress.postId;
    const main = { platformPostId: postId, platformUrl: progress.postUrl };
    if (thread.length === 0) return { kind: 'published', ...main } satisfies PublishOutcome;

    const soFar = () => ({ ...main, threadPostIds: [...progress.threadIds] });
    return afterMainPost(request.signal, soFar, async () => {
      for (let index = progress.threadIds.length; index < thread.length; index++) {
        const part = thread[index];
        if (part === undefined) break;
        const replyTo = progress.threadIds[index - 1] ?? postId;
        const id = await publishPart(index + 1, {
          text: part.content,
          mediaUrls: part.mediaUrls,
          replyTo,
        });
        progress.threadIds.push(id);
        progress.container = null;
        await save();
      }
      return { kind: 'published', ...main, threadPostIds: [...progress.threadIds] };
    });
  }

  /** The post's permalink; the post is live, so a failing lookup is no failure (aborts are). */
  async function permalinkOf(
    request: PublishRequest,
    api: Api,
    auth: AuthSession,
    mediaId: string,
  ): Promise<string | null> {
    try {
      return await auth.call((token) => api.permalink(token, mediaId));
    } catch (error) {
      if (request.signal.aborted) throw error;
      return null;
    }
  }

  /** The first comment: Threads has no comments apart from replies, so it is the first reply. */
  const comment = {
    label: LABEL,
    send: async (request: PublishRequest, postId: string, message: string) => {
      const api = createThreadsApi(config, runtime, request.signal);
      const auth = new AuthSession(request, null, LABEL);
      const part = { text: message, mediaUrls: [], replyTo: postId };
      const containerId = await makeContainer(request, api, auth, part);
      await settle(request, api, auth, containerId, Date.now());
      return auth.call((token) => api.publish(token, request.connection.externalId, containerId));
    },
  };

  return progressPublisher({
    platform: 'threads',
    validate: validateThreads,
    readProgress,
    run,
    comment,
  });
}

const mediaParams = (url: string): Record<string, string> =>
  mediaKindOf(url) === 'photo'
    ? { media_type: 'IMAGE', image_url: url }
    : { media_type: 'VIDEO', video_url: url };
