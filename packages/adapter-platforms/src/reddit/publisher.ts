// Reddit posts: one POST /api/submit, a text post (its body the content) or a link post, sent
// once under an intent; a run that finds an earlier run's intent looks among the user's latest
// submissions first (same subreddit and title, made since the intent) instead of posting again.
import type { PlatformPublisher, PublishOutcome } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { findSent, intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { assertMediaAllowed } from '../shared/media-guard.ts';
import { fail } from '../shared/outcome.ts';
import { type OneCallRun, oneCallPublisher } from '../shared/publish-run.ts';
import { createRedditApi, LABEL, redditRefresher, type Submitted } from './api.ts';
import { usernameOf } from './oauth.ts';
import { type RedditOptions, redditOptionsOf } from './options.ts';
import type { RedditSettings } from './settings.ts';
import { linkOf, validateReddit } from './validate.ts';

/** The intent step of POST /api/submit. */
const SUBMIT = 'submit';

type RedditRun = OneCallRun<ReturnType<typeof createRedditApi>>;

export function createRedditPublisher(
  settings: RedditSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  return oneCallPublisher({
    platform: 'reddit',
    label: LABEL,
    validate: validateReddit,
    runtime,
    refresher: redditRefresher(settings, runtime),
    api: (signal) => createRedditApi(settings, runtime, signal),
    publish,
  });
}

async function publish(run: RedditRun): Promise<PublishOutcome> {
  const { request, auth, api } = run;
  const options = redditOptionsOf(request.post.platformOptions);
  const { subreddit, title } = options;
  if (subreddit === undefined || title === undefined) {
    throw fail('invalid_params', 'Reddit needs platform_options.reddit.subreddit and title', false);
  }
  const sentBefore = intentAt(request, SUBMIT);
  if (sentBefore !== null) {
    const found = await findSubmitted(run, sentBefore, subreddit, title);
    if (found !== undefined) return publishedAs(found);
  }
  const fields = await submitFields(run, options, subreddit, title);
  await request.beforeCountedCall();
  const submitted = await sendOnce(request, SUBMIT, () =>
    auth.call((token) => api.submit(token, fields)),
  );
  return publishedAs(submitted);
}

/** The form of POST /api/submit: `sr`, `kind`, `title`, `text` or `url`, flair and marks. */
async function submitFields(
  run: RedditRun,
  options: RedditOptions,
  subreddit: string,
  title: string,
): Promise<Record<string, string>> {
  const { request, runtime } = run;
  const fields: Record<string, string> = { sr: subreddit, kind: options.kind, title };
  if (options.kind === 'self') {
    fields.text = request.post.content;
  } else {
    const url = linkOf(options.url, request.post.mediaUrls);
    if (url === undefined) throw fail('invalid_params', 'A Reddit link post needs a URL', false);
    // A media URL is ours to vouch for (Reddit fetches it for its preview): our guard first.
    if (options.url === undefined) await assertMediaAllowed(url, runtime, request.signal);
    fields.url = url;
  }
  if (options.flairId !== undefined) fields.flair_id = options.flairId;
  if (options.nsfw) fields.nsfw = 'true';
  if (options.spoiler) fields.spoiler = 'true';
  return fields;
}

/**
 * The post an earlier run submitted, among the user's latest submissions: same subreddit (Reddit
 * keeps its own capitalisation) and title, made since the intent. When they cannot be read the
 * outcome stays unknown: never posted twice.
 */
async function findSubmitted(
  run: RedditRun,
  intent: PublishIntent,
  subreddit: string,
  title: string,
): Promise<Submitted | undefined> {
  const { request, auth, api } = run;
  const stored = usernameOf(request.connection.platformData);
  return findSent({
    label: LABEL,
    intent,
    read: () =>
      auth.call(async (token) => api.submitted(token, stored ?? (await api.username(token)))),
    same: (candidate) =>
      candidate.subreddit.toLowerCase() === subreddit.toLowerCase() && candidate.title === title,
    pick: 'closest',
  });
}

const publishedAs = (submitted: Submitted) =>
  ({
    kind: 'published',
    platformPostId: submitted.name,
    platformUrl:
      submitted.url ?? `https://www.reddit.com/comments/${submitted.name.replace(/^t3_/, '')}/`,
  }) satisfies PublishOutcome;
