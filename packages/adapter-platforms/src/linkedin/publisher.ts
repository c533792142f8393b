import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { findSent, intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { PublishFailure } from '../shared/outcome.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { createLinkedinApi, linkedinRefresher } from './api.ts';
import { duplicateOf } from './failure.ts';
import { type LinkedinProgress, readProgress } from './progress.ts';
import { authorOf, LABEL, type LinkedinRun, startRun } from './run.ts';
import type { LinkedinSettings } from './settings.ts';
import { uploadContent } from './upload.ts';
import { validateLinkedin } from './validate.ts';

/** The intent step of POST /rest/posts. */
const CREATE_POST = 'create_post';

export function createLinkedinPublisher(
  config: LinkedinSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = linkedinRefresher(config, runtime);
  const run = (request: PublishRequest, stored: LinkedinProgress | null) =>
    publish(startRun(config, runtime, refresher, request, stored));

  const comment = {
    label: LABEL,
    send: (request: PublishRequest, postUrn: string, text: string) => {
      const api = createLinkedinApi(config, runtime, request.signal);
      const auth = new AuthSession(request, refresher, LABEL);
      const actor = authorOf(request.connection.externalId);
      return auth.call((token) => api.createComment(token, actor, postUrn, text));
    },
  };
  return progressPublisher({
    platform: 'linkedin',
    validate: validateLinkedin,
    readProgress,
    run,
    comment,
  });
}

/** Looks for a post an earlier run sent; else uploads the media and creates the post once. */
async function publish(run: LinkedinRun): Promise<PublishOutcome> {
  const { request } = run;
  const commentary = escapeCommentary(request.post.content);
  // An earlier run sent the post and stopped before recording LinkedIn's answer: look for it.
  const sentBefore = intentAt(request, CREATE_POST);
  if (sentBefore !== null) {
    const found = await findSentPost(run, sentBefore, commentary);
    if (found !== undefined) return publishedAs(found);
  }
  const content = await uploadContent(run, request.post.mediaUrls);
  const post: Record<string, unknown> = {
    author: run.author,
    commentary,
    visibility: 'PUBLIC',
    distribution: {
      feedDistribution: 'MAIN_FEED',
      targetEntities: [],
      thirdPartyDistributionChannels: [],
    },
    lifecycleState: 'PUBLISHED',
    isReshareDisabledByAuthor: false,
    ...(content === undefined ? {} : { content }),
  };
  await request.beforeCountedCall();
  return publishedAs(await createPost(run, post, sentBefore));
}

/**
 * POST /rest/posts under an intent. When an earlier run sent it, LinkedIn may call this one
 * the duplicate of the post that run created: that post is the answer.
 */
async function createPost(
  run: LinkedinRun,
  post: Record<string, unknown>,
  sentBefore: PublishIntent | null,
): Promise<string> {
  const { request, auth, api } = run;
  try {
    return await sendOnce(request, CREATE_POST, () => auth.call((t) => api.createPost(t, post)));
  } catch (error) {
    const duplicate =
      sentBefore !== null &&
      error instanceof PublishFailure &&
      error.outcome.kind === 'failed' &&
      error.outcome.code === 'duplicate_content'
        ? duplicateOf(error.outcome.message)
        : undefined;
    if (duplicate === undefined) throw error;
    return duplicate;
  }
}

/**
 * The post an earlier run sent, among the author's latest (same commentary, created after
 * its intent). Sending again is only safe when LinkedIn can be asked: without the read
 * permission the outcome stays unknown.
 */
async function findSentPost(
  run: LinkedinRun,
  intent: PublishIntent,
  commentary: string,
): Promise<string | undefined> {
  const { auth, api, author } = run;
  const match = await findSent({
    label: LABEL,
    intent,
    read: () => auth.call((token) => api.recentPosts(token, author)),
    same: (candidate) => candidate.commentary === commentary,
    pick: 'newest',
  });
  return match?.urn;
}

const publishedAs = (urn: string) =>
  ({
    kind: 'published',
    platformPostId: urn,
    platformUrl: `https://www.linkedin.com/feed/update/${urn}`,
  }) satisfies PublishOutcome;

/**
 * Commentary is LinkedIn "little text": `( ) [ ] { } < > @ | ~ _ * \` are markup (mentions,
 * templates) and must be backslash-escaped to show literally.
 */
export const escapeCommentary = (text: string): string =>
  text.replace(/[\\()[\]{}<>@|~_*]/g, (character) => `\\${character}`);
