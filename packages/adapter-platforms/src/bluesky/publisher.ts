import { Transform } from 'node:stream';
import type {
  PlatformPublisher,
  PublishOutcome,
  PublishRequest,
  ThreadPart,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { afterMainPost } from '../shared/follow-ups.ts';
import { sendOnce } from '../shared/intent.ts';
import { mediaKindOf } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { createMediaFetcher, discard } from '../shared/media-fetch.ts';
import { fail } from '../shared/outcome.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { type BlobRef, createBlueskyApi, type StrongRef } from './api.ts';
import { type BlueskyProgress, freshProgress, readProgress } from './progress.ts';
import { COMMENT_PART, followUpPart, MAIN_PART, recordKey } from './record-key.ts';
import { blueskyRefresher } from './session.ts';
import type { BlueskySettings } from './settings.ts';
import { facetsOf } from './text.ts';
import { validateBluesky } from './validate.ts';
import { mapped } from './xrpc.ts';

const LABEL = 'Bluesky';
/** Bluesky refuses an image blob over 1,000,000 bytes. */
export const BLUESKY_MAX_IMAGE_BYTES = 1_000_000;
/** And a video over 100 MB. */
export const BLUESKY_MAX_VIDEO_BYTES = 100_000_000;

/** The intent step of the main post, of follow-up n, of the first comment. */
const CREATE_POST = 'create_post';
const FOLLOW_UP = 'thread_';
const FIRST_COMMENT = 'first_comment';

export function createBlueskyPublisher(
  config: BlueskySettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = blueskyRefresher(config, runtime);

  async function run(
    request: PublishRequest,
    stored: BlueskyProgress | null,
  ): Promise<PublishOutcome> {
    const auth = new AuthSession(request, refresher, LABEL);
    const api = createBlueskyApi(config, runtime, request.signal);
    const media = createMediaFetcher(runtime, request.signal);
    const repo = request.connection.externalId; // the account's DID
    const progress = stored ?? freshProgress();
    const save = () => request.saveProgress(structuredClone(progress) as never);
    const { post } = request;
    const keyOf = (part: number) => recordKey(post.createdAt, request.target.id, part);

    let main = progress.post;
    if (main === null) {
      const embed = await embedOf(post.mediaUrls);
      await request.beforeCountedCall();
      main = await create(CREATE_POST, keyOf(MAIN_PART), post.content, embed, null);
      progress.post = main;
      if (post.thread.length > 0 || post.firstComment) await save();
    }
    const root = main;
    const outcome = () => ({
      ...publishedAs(root),
      ...(post.thread.length > 0 ? { threadPostIds: progress.thread.map((ref) => ref.uri) } : {}),
    });
    if (post.thread.length === 0 && !post.firstComment) return publishedAs(root);

    return afterMainPost(request.signal, outcome, async () => {
      for (let index = progress.thread.length; index < post.thread.length; index++) {
        const part = post.thread[index] as ThreadPart;
        const parent = progress.thread[index - 1] ?? root;
        const embed = await embedOf(part.mediaUrls);
        const reply = { root, parent };
        const key = keyOf(followUpPart(index));
        progress.thread.push(await create(`${FOLLOW_UP}${index}`, key, part.content, embed, reply));
        await save();
      }
      if (!post.firstComment) return outcome();
      const reply = { root, parent: root };
      const comment = await create(
        FIRST_COMMENT,
        keyOf(COMMENT_PART),
        post.firstComment,
        undefined,
        reply,
      );
      return { ...outcome(), firstCommentId: comment.uri };
    });

    /**
     * One post record under its derived key. When an earlier run sent it and stopped before
     * storing the answer (its intent is left), the record is looked up first; either way a
     * second create under the same key is refused by Bluesky and answered with the first.
     */
    async function create(
      step: string,
      rkey: string,
      text: string,
      embed: Record<string, unknown> | undefined,
      reply: { root: StrongRef; parent: StrongRef } | null,
    ): Promise<StrongRef> {
      if (request.intent?.step === step) {
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
        auth.call((token) =>
          mapped('createRecord', () => api.createPost(token, repo, rkey, record)),
        ),
      );
    }

    /** The embed of a post's media: up to 4 images, or one video; none without media. */
    async function embedOf(urls: readonly string[]): Promise<Record<string, unknown> | undefined> {
      if (urls.length === 0) return undefined;
      if (urls.some((url) => mediaKindOf(url) === 'video')) {
        const url = urls[0];
        if (url === undefined || urls.length > 1) {
          throw fail('invalid_params', 'Bluesky takes one video per post, without images', false);
        }
        const video = await upload(url, BLUESKY_MAX_VIDEO_BYTES, 'video/mp4');
        return { $type: 'app.bsky.embed.video', video };
      }
      const images: { alt: string; image: BlobRef }[] = [];
      for (const url of urls) {
        images.push({ alt: '', image: await upload(url, BLUESKY_MAX_IMAGE_BYTES) });
      }
      return { $type: 'app.bsky.embed.images', images };
    }

    /**
     * One blob, streamed from its URL (fetched again when a refreshed token retries it). A
     * video served without a video type is sent as `fallbackType` (Bluesky keys on the type).
     */
    function upload(url: string, max: number, fallbackType?: string): Promise<BlobRef> {
      return auth.call(async (token) => {
        const fetched = await media.whole(url);
        const file =
          fallbackType && !fetched.contentType.startsWith('video/')
            ? { ...fetched, contentType: fallbackType }
            : fetched;
        try {
          if (file.length !== undefined && file.length > max) throw tooLarge(url, max);
          const body = file.body.pipe(atMost(max, url));
          file.body.on('error', (error) => body.destroy(error));
          return await mapped('uploadBlob', () => api.uploadBlob(token, { ...file, body }));
        } finally {
          discard(file.body);
        }
      });
    }
  }

  return progressPublisher({
    platform: 'bluesky',
    validate: validateBluesky,
    readProgress: (state) => readProgress(state),
    run,
  });
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

const tooLarge = (url: string, max: number) =>
  fail('media_too_large', `media ${url} is larger than ${max} bytes, Bluesky's limit`, false);

/** Passes the bytes through, failing the upload past `max` (a server that did not say). */
function atMost(max: number, url: string): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > max ? tooLarge(url, max) : null, size > max ? undefined : chunk);
    },
  });
}
