import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { afterMainPost } from '../shared/follow-ups.ts';
import { intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { fail, notThePlatforms } from '../shared/outcome.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { type PublishRun, startPublishRun } from '../shared/publish-run.ts';
import { createThreadsApi } from './api.ts';
import { makeContainer, type Part, settle } from './container.ts';
import { findPublished } from './lookup.ts';
import { freshProgress, readProgress, type ThreadsProgress } from './progress.ts';
import type { ThreadsSettings } from './settings.ts';
import { validateThreads } from './validate.ts';

const LABEL = 'Threads';
/** The intent step of the main post's threads_publish. */
const PUBLISH_POST = 'publish';
/** The intent step of follow-up n's threads_publish (`thread_0`, ...): each looked for on its own. */
const FOLLOW_UP = 'thread_';

type ThreadsRun = PublishRun<ReturnType<typeof createThreadsApi>, ThreadsProgress>;

export function createThreadsPublisher(
  config: ThreadsSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  const run = (request: PublishRequest, stored: ThreadsProgress | null) =>
    publish(
      startPublishRun(request, runtime, {
        label: LABEL,
        // Threads long-lived tokens are renewed ahead by the worker (th_refresh_token), not with
        // a refresh token here: a 190 ends the publish with connection_expired.
        refresher: null,
        api: createThreadsApi(config, runtime, request.signal),
        progress: stored ?? freshProgress(),
      }),
    );

  /** The first comment: Threads has no comments apart from replies, so it is the first reply. */
  const comment = {
    label: LABEL,
    send: async (request: PublishRequest, postId: string, message: string) => {
      const api = createThreadsApi(config, runtime, request.signal);
      const auth = new AuthSession(request, null, LABEL);
      const calls = { request, runtime, auth, api };
      const part = { text: message, mediaUrls: [], replyTo: postId };
      const containerId = await makeContainer(calls, part);
      await settle(calls, containerId, Date.now());
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

/** The main post (once), then each follow-up as a reply to the one before, stored as it goes. */
async function publish(run: ThreadsRun): Promise<PublishOutcome> {
  const { request, progress } = run;
  const thread = request.post.thread;
  if (progress.postId === null) {
    const postId = await publishPart(run, 0, {
      text: request.post.content,
      mediaUrls: request.post.mediaUrls,
      replyTo: null,
    });
    progress.postId = postId;
    progress.postUrl = await permalinkOf(run, postId);
    progress.container = null;
    if (thread.length > 0) await run.save();
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
      const id = await publishPart(run, index + 1, {
        text: part.content,
        mediaUrls: part.mediaUrls,
        replyTo,
      });
      progress.threadIds.push(id);
      progress.container = null;
      await run.save();
    }
    return { kind: 'published', ...main, threadPostIds: [...progress.threadIds] };
  });
}

/**
 * Publishes part `index` (0 the main post, n follow-up n-1) once: an intent left by an
 * earlier run is looked up first, a stored container is followed rather than made again,
 * and threads_publish goes under an intent.
 */
async function publishPart(run: ThreadsRun, index: number, part: Part): Promise<string> {
  const { request, auth, api, progress } = run;
  const userId = request.connection.externalId;
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
    const id = await makeContainer(run, part);
    container = { part: index, id, pollStartedAt: Date.now() };
    progress.container = container;
    await run.save();
  }
  const { id: containerId } = container;
  const state = await settle(run, containerId, container.pollStartedAt);
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

/** The post's permalink; the post is live, so a failing lookup is no failure (aborts are). */
async function permalinkOf(run: ThreadsRun, mediaId: string): Promise<string | null> {
  try {
    return await run.auth.call((token) => run.api.permalink(token, mediaId));
  } catch (error) {
    if (notThePlatforms(run.request.signal, error)) throw error;
    return null;
  }
}
