// Google Business Profile posts: one POST /v4/{account}/{location}/localPosts (a STANDARD post,
// its summary the content, one photo Google fetches itself, a button), sent once under an
// intent; a run that finds an earlier run's intent looks among the location's latest posts
// first (same summary, created since the intent) instead of posting again.
import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import { googleRefresher } from '../google/oauth.ts';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { findSent, intentAt, type PublishIntent, sendOnce } from '../shared/intent.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { assertMediaAllowed } from '../shared/media-guard.ts';
import { fail } from '../shared/outcome.ts';
import { type OneCallRun, oneCallPublisher } from '../shared/publish-run.ts';
import { createGoogleBusinessApi, LABEL, type LocalPost } from './api.ts';
import { googleBusinessOptionsOf } from './options.ts';
import type { GoogleBusinessSettings } from './settings.ts';
import { validateGoogleBusiness } from './validate.ts';

/** The intent step of POST .../localPosts. */
const CREATE_POST = 'create_local_post';

type GoogleBusinessRun = OneCallRun<ReturnType<typeof createGoogleBusinessApi>>;

export function createGoogleBusinessPublisher(
  settings: GoogleBusinessSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  return oneCallPublisher({
    platform: 'google_business',
    label: LABEL,
    validate: validateGoogleBusiness,
    runtime,
    refresher: googleRefresher(settings, runtime, LABEL),
    api: (signal) => createGoogleBusinessApi(settings, runtime, signal),
    publish,
  });
}

/**
 * `accounts/{a}/locations/{l}`: the connection's location under the account kept at connect;
 * a connection brought with that whole path as its external id needs no account.
 */
export function parentOf(connection: PublishRequest['connection']): string {
  const { externalId, platformData } = connection;
  if (/^accounts\/[^/]+\/locations\/[^/]+$/.test(externalId)) return externalId;
  const account = platformData?.account;
  if (typeof account === 'string' && /^locations\/[^/]+$/.test(externalId)) {
    return `${account}/${externalId}`;
  }
  throw fail(
    'invalid_connection',
    `${LABEL}: the connection does not name its account and location (accounts/{a}/locations/{l}); connect it again`,
    false,
  );
}

async function publish(run: GoogleBusinessRun): Promise<PublishOutcome> {
  const { request, runtime, auth, api } = run;
  const parent = parentOf(request.connection);
  const summary = request.post.content;
  const sentBefore = intentAt(request, CREATE_POST);
  if (sentBefore !== null) {
    const found = await findPosted(run, sentBefore, parent, summary);
    if (found !== undefined) return publishedAs(found);
  }
  const options = googleBusinessOptionsOf(request.post.platformOptions);
  const photo = request.post.mediaUrls[0];
  // Google fetches the photo itself: never a URL our own guard refuses.
  if (photo !== undefined) await assertMediaAllowed(photo, runtime, request.signal);
  const cta = options.callToAction;
  const post = {
    languageCode: options.languageCode,
    summary,
    topicType: 'STANDARD',
    ...(cta
      ? { callToAction: { actionType: cta.actionType, ...(cta.url ? { url: cta.url } : {}) } }
      : {}),
    ...(photo === undefined ? {} : { media: [{ mediaFormat: 'PHOTO', sourceUrl: photo }] }),
  };
  await request.beforeCountedCall();
  const created = await sendOnce(request, CREATE_POST, () =>
    auth.call((token) => api.createLocalPost(token, parent, post)),
  );
  return publishedAs(created);
}

/**
 * The post an earlier run created, among the location's latest (same summary, since the
 * intent). When they cannot be read the outcome stays unknown: never posted twice.
 */
function findPosted(
  run: GoogleBusinessRun,
  intent: PublishIntent,
  parent: string,
  summary: string,
): Promise<LocalPost | undefined> {
  const { auth, api } = run;
  return findSent({
    label: LABEL,
    intent,
    read: () => auth.call((token) => api.localPosts(token, parent)),
    same: (candidate) => candidate.summary === summary,
    pick: 'closest',
    ambiguous:
      summary === '' ? 'the post had no text, so any photo post since could be it' : undefined,
  });
}

/** A post Google rejected (its content policy) exists but will not show: a final failure. */
function publishedAs(post: LocalPost): PublishOutcome {
  if (post.state === 'REJECTED') {
    throw fail(
      'post_rejected',
      `${LABEL} rejected the post (${post.name}): it breaks Google's content policies`,
      false,
    );
  }
  return { kind: 'published', platformPostId: post.name, platformUrl: post.searchUrl };
}
