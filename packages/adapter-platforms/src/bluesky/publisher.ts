import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { afterMainPost, type ThreadPart } from '../shared/follow-ups.ts';
import { intentAt, sendOnce } from '../shared/intent.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import type { StrongRef } from './api.ts';
import { embedOf } from './embed.ts';
import { type BlueskyProgress, readProgress } from './progress.ts';
import { COMMENT_PART, followUpPart, MAIN_PART } from './record-key.ts';
import { type BlueskyRun, startRun } from './run.ts';
import { blueskyRefresher } from './session.ts';
import type { BlueskySettings } from './settings.ts';
import { facetsOf } from './text.ts';
import { validateBluesky } from './validate.ts';
import { mapped } from './xrpc.ts';

/** The intent step of the main post, of follow-up n, of the first comment. */
const CREATE_POST = 'create_post';
const FOLLOW_UP = 'thread_';
const FIRST_COMMENT = 'first_comment';

type Reply = { root: StrongRef; parent: StrongRef };

export function createBlueskyPublisher(
  config: BlueskySettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = blueskyRefresher(config, runtime);
  const run = (request: PublishRequest, stored: BlueskyProgress | null) =>
    publish(startRun(config, runtime, refresher, request, stored));
  return progressPublisher({
    platform: 'bluesky',
    validate: validateBluesky,
    readProgress: (state) => readProgress(state),
    run,
  });
}

/** The main post (once), then its thread and first comment as replies to it. */
async function publish(run: BlueskyRun): Promise<PublishOutcome> {
  const { request, progress } = run;
  const { post } = request;
  const root = progress.post ?? (await postMain(run));
  const outcome = () => ({
    ...publishedAs(root),
    ...(post.thread.length > 0 ? { threadPostIds: progress.thread.map((ref) => ref.uri) } : {}),
  });
  if (post.thread.length === 0 && !post.firstComment) return publishedAs(root);
  return afterMainPost(request.signal, outcome, async () => {
    await postThread(run, root);
    if (!post.firstComment) return outcome();
    const reply = { root, parent: root };
    const key = run.keyOf(COMMENT_PART);
    const comment = await createPost(run, FIRST_COMMENT, key, post.firstComment, undefined, reply);
    return { ...outcome(), firstCommentId: comment.uri };
  });
}

/** The main post with its media; stored when replies are to follow. */
async function postMain(run: BlueskyRun): Promise<StrongRef> {
  const { request, progress } = run;
  const { post } = request;
  const embed = await embedOf(run, post.mediaUrls);
  await request.beforeCountedCall();
  const main = await createPost(run, CREATE_POST, run.keyOf(MAIN_PART), post.content, embed, null);
  progress.post = main;
  if (post.thread.length > 0 || post.firstComment) await run.save();
  return main;
}

/** The follow-ups not created yet, each a reply to the one before, stored as it goes. */
async function postThread(run: BlueskyRun, root: StrongRef): Promise<void> {
  const { progress } = run;
  const { thread } = run.request.post;
  for (let index = progress.thread.length; index < thread.length; index++) {
    const part = thread[index] as ThreadPart;
    const parent = progress.thread[index - 1] ?? root;
    const embed = await embedOf(run, part.mediaUrls);
    const key = run.keyOf(followUpPart(index));
    const step = `${FOLLOW_UP}${index}`;
    progress.thread.push(await createPost(run, step, key, part.content, embed, { root, parent }));
    await run.save();
  }
}

/**
 * One post record under its derived key. When an earlier run sent it and stopped before
 * storing the answer (its intent is left), the record is looked up first; either way a
 * second create under the same key is refused by Bluesky and answered with the first.
 */
async function createPost(
  run: BlueskyRun,
  step: string,
  rkey: string,
  text: string,
  embed: Record<string, unknown> | undefined,
  reply: Reply | null,
): Promise<StrongRef> {
  const { request, auth, api, repo } = run;
  if (intentAt(request, step) !== null) {
    const found = await auth.call((token) =>
      mapped('getRecord', () => api.findPost(token, repo, rkey)),
    );
    if (found) return found;
  }
  const facets = facetsOf(text);
  const record = {
    $type: 'app.bsky.feed.post',
    text,
    createdAt: new Date().toISOString(),
    ...(facets.length > 0 ? { facets } : {}),
    ...(embed ? { embed } : {}),
    ...(reply ? { reply } : {}),
  };
  return sendOnce(request, step, () =>
    auth.call((token) => mapped('createRecord', () => api.createPost(token, repo, rkey, record))),
  );
}

/** The post's id is its at:// URI; bsky.app shows it under the author's DID and its key. */
function publishedAs(ref: StrongRef) {
  const [, , did, , rkey] = ref.uri.split('/');
  return {
    kind: 'published',
    platformPostId: ref.uri,
    platformUrl: did && rkey ? `https://bsky.app/profile/${did}/post/${rkey}` : null,
  } satisfies PublishOutcome;
}
