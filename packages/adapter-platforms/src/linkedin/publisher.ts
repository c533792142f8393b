import type {
  PlatformPublisher,
  PostDraft,
  Problem,
  PublishIntent,
  PublishOutcome,
  PublishRequest,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession } from '../shared/auth.ts';
import { findSent, intentAt, sendOnce } from '../shared/intent.ts';
import { mediaKindOf, oneVideoOrPhotos } from '../shared/media.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { createMediaFetcher, discard } from '../shared/media-fetch.ts';
import { fail, PublishFailure } from '../shared/outcome.ts';
import { pollUntil } from '../shared/poll.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import {
  createLinkedinApi,
  duplicateOf,
  linkedinRefresher,
  type VideoPart,
  type VideoUpload,
} from './api.ts';
import type { LinkedinSettings } from './settings.ts';

export const LINKEDIN_MAX_IMAGES = 20;
const LABEL = 'LinkedIn';
/** The intent step of POST /rest/posts. */
const CREATE_POST = 'create_post';

/** A video being uploaded: what initializeUpload answered and the parts done so far. */
interface VideoProgress extends VideoUpload {
  totalBytes: number;
  /** Per part, its ETag once uploaded (null: still to send). */
  etags: (string | null)[];
  finalized: boolean;
  /** When status polling began (keeps the bound across resumes). */
  pollStartedAt: number | null;
}

/**
 * Stored on the target (saveProgress) as media finish uploading and before the post is created,
 * so a resume reuses finished media and never posts twice.
 */
interface LinkedinProgress {
  author: string;
  /** Per media URL, the image URN once its bytes are uploaded. */
  images: (string | null)[];
  video: VideoProgress | null;
}

export function createLinkedinPublisher(
  config: LinkedinSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);
  const refresher = linkedinRefresher(config, runtime);

  async function run(request: PublishRequest, stored: LinkedinProgress | null) {
    const auth = new AuthSession(request, refresher, LABEL);
    const api = createLinkedinApi(config, runtime, request.signal);
    const media = createMediaFetcher(runtime, request.signal);
    const urls = request.post.mediaUrls;
    const author = stored?.author ?? authorOf(request.connection.externalId);
    const progress: LinkedinProgress = stored ?? {
      author,
      images: urls.map(() => null),
      video: null,
    };
    const save = () => request.saveProgress(structuredClone(progress) as never);
    const commentary = escapeCommentary(request.post.content);
    // An earlier run sent the post and stopped before recording LinkedIn's answer: look for it.
    const sentBefore = intentAt(request, CREATE_POST);
    if (sentBefore !== null) {
      const found = await findSentPost(sentBefore);
      if (found !== undefined) return publishedAs(found);
    }
    const kinds = urls.map(mediaKindOf);

    let content: Record<string, unknown> | undefined;
    if (kinds.includes('video')) {
      const url = urls[0];
      if (url === undefined || urls.length > 1) {
        throw fail('invalid_params', 'LinkedIn takes one video per post, without photos', false);
      }
      content = { media: { id: await uploadVideo(url) } };
    } else if (urls.length > 0) {
      const ids: string[] = [];
      for (const [index, url] of urls.entries()) ids.push(await uploadImage(url, index));
      content =
        ids.length === 1
          ? { media: { id: ids[0] } }
          : { multiImage: { images: ids.map((id) => ({ id })) } };
    }

    const post: Record<string, unknown> = {
      author,
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
    let urn: string;
    try {
      urn = await sendOnce(request, CREATE_POST, () => auth.call((t) => api.createPost(t, post)));
    } catch (error) {
      // The post that earlier run sent exists after all: LinkedIn calls this one its duplicate.
      const duplicate =
        sentBefore !== null &&
        error instanceof PublishFailure &&
        error.outcome.kind === 'failed' &&
        error.outcome.code === 'duplicate_content'
          ? duplicateOf(error.outcome.message)
          : undefined;
      if (duplicate === undefined) throw error;
      urn = duplicate;
    }
    return publishedAs(urn);

    /**
     * The post an earlier run sent, among the author's latest (same commentary, created after
     * its intent). Sending again is only safe when LinkedIn can be asked: without the read
     * permission the outcome stays unknown.
     */
    async function findSentPost(intent: PublishIntent): Promise<string | undefined> {
      const match = await findSent({
        label: LABEL,
        intent,
        read: () => auth.call((token) => api.recentPosts(token, author)),
        same: (candidate) => candidate.commentary === commentary,
        pick: 'newest',
      });
      return match?.urn;
    }

    /** One image: initializeUpload, then its bytes streamed from the media URL. */
    async function uploadImage(url: string, index: number): Promise<string> {
      const done = progress.images[index];
      if (done) return done;
      const image = await auth.call(async (token) => {
        const { uploadUrl, image } = await api.initializeImage(token, author);
        const body = await media.whole(url);
        try {
          await api.uploadImage(token, uploadUrl, body, author);
        } finally {
          discard(body.body);
        }
        return image;
      });
      progress.images[index] = image;
      await save();
      return image;
    }

    /** The video: initializeUpload, each part streamed by range, finalizeUpload, processing. */
    async function uploadVideo(url: string): Promise<string> {
      let video = progress.video;
      if (video === null) {
        const totalBytes = await media.size(url);
        const upload = await auth.call((token) => api.initializeVideo(token, author, totalBytes));
        video = {
          ...upload,
          totalBytes,
          etags: upload.parts.map(() => null),
          finalized: false,
          pollStartedAt: null,
        };
        progress.video = video;
        await save();
      }
      const current = video;
      if (!current.finalized) {
        for (const [index, part] of current.parts.entries()) {
          if (current.etags[index]) continue;
          current.etags[index] = await auth.call((token) => sendPart(token, url, part, current));
          await save();
        }
        const etags = current.etags.filter((etag): etag is string => etag !== null);
        await auth.call((token) => api.finalizeVideo(token, current, etags, author));
        current.finalized = true;
        current.pollStartedAt = Date.now();
        await save();
      }
      await pollUntil<true>({
        intervalMs: runtime.pollIntervalMs,
        timeoutMs: runtime.pollTimeoutMs,
        startedAt: current.pollStartedAt ?? Date.now(),
        signal: request.signal,
        what: `LinkedIn video ${current.video}`,
        check: async () => {
          const status = await auth.call((token) => api.videoStatus(token, current.video));
          if (status === 'AVAILABLE') return true;
          if (status === 'PROCESSING_FAILED') {
            throw fail(
              'video_processing_failed',
              `LinkedIn could not process video ${current.video} (PROCESSING_FAILED)`,
              false,
            );
          }
          return undefined; // PROCESSING, WAITING_UPLOAD
        },
      });
      return current.video;
    }

    async function sendPart(token: string, url: string, part: VideoPart, video: VideoProgress) {
      const body = await media.range(url, part.firstByte, part.lastByte, video.totalBytes);
      try {
        return await api.uploadVideoPart(token, part, body, author);
      } finally {
        discard(body.body);
      }
    }
  }

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

/**
 * The post's author from the connection: the member (`urn:li:person:{id}`) or an organization
 * it administers (`urn:li:organization:{id}`), as the connector stores them. A bare id (older
 * connections) is taken as the member's.
 */
const publishedAs = (urn: string) =>
  ({
    kind: 'published',
    platformPostId: urn,
    platformUrl: `https://www.linkedin.com/feed/update/${urn}`,
  }) satisfies PublishOutcome;

export function authorOf(externalId: string): string {
  if (/^urn:li:(person|organization):[^:]+$/.test(externalId)) return externalId;
  return `urn:li:person:${externalId}`;
}

/**
 * Commentary is LinkedIn "little text": `( ) [ ] { } < > @ | ~ _ * \` are markup (mentions,
 * templates) and must be backslash-escaped to show literally.
 */
export const escapeCommentary = (text: string): string =>
  text.replace(/[\\()[\]{}<>@|~_*]/g, (character) => `\\${character}`);

function readProgress(
  state: Record<string, unknown> | null,
  mediaCount: number,
): LinkedinProgress | null {
  if (!state || typeof state.author !== 'string') return null;
  const images = Array.isArray(state.images)
    ? state.images.map((item) => (typeof item === 'string' ? item : null))
    : [];
  while (images.length < mediaCount) images.push(null);
  const video = readVideo(state.video);
  return { author: state.author, images, video };
}

function readVideo(value: unknown): VideoProgress | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.video !== 'string' || !Array.isArray(v.parts) || typeof v.totalBytes !== 'number') {
    return null;
  }
  const parts = v.parts as VideoPart[];
  const etags = Array.isArray(v.etags)
    ? v.etags.map((etag) => (typeof etag === 'string' ? etag : null))
    : [];
  while (etags.length < parts.length) etags.push(null);
  return {
    video: v.video,
    uploadToken: typeof v.uploadToken === 'string' ? v.uploadToken : '',
    parts,
    totalBytes: v.totalBytes,
    etags,
    finalized: v.finalized === true,
    pollStartedAt: typeof v.pollStartedAt === 'number' ? v.pollStartedAt : null,
  };
}

/**
 * LinkedIn checks beyond the shared rules (content length is the descriptor's 3000): one kind
 * of media, one video, 1 to 20 images (2+ make a multi-image post).
 */
export function validateLinkedin(draft: PostDraft): Problem[] {
  return oneVideoOrPhotos('linkedin', draft.mediaUrls, LINKEDIN_MAX_IMAGES);
}
