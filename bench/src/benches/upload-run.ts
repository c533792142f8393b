/**
 * Child process of the upload benchmark, the measured one: uploads one video through the
 * YouTube publisher (`adapter`) or through a bare undici GET -> PUT pipe (`floor`), sampling
 * its own RSS every few milliseconds. Started fresh for each upload (with --expose-gc), so the
 * RSS is the upload's and nothing else's.
 *
 * Env: UPLOAD_KIND (adapter|floor), YOUTUBE_BASE_URL, MEDIA_URL, UPLOAD_BYTES.
 */
import { randomUUID } from 'node:crypto';
import { createPlatformRegistry } from '@social-publisher/adapter-platforms';
import type { Post, PostTarget, PublishRequest } from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import { tuneHeapForServing } from '@social-publisher/runtime/heap-tuning';
import { request } from 'undici';
import { onParentMessage, toParent } from '../lib/child.ts';

// As a serving process starts (and the floor beside it, in the same process kind).
tuneHeapForServing();

const kind = process.env.UPLOAD_KIND ?? 'adapter';
const youtubeBase = process.env.YOUTUBE_BASE_URL ?? '';
const MEDIA_URL = process.env.MEDIA_URL ?? '';
const BYTES = Number(process.env.UPLOAD_BYTES);
/** One small upload first: undici's parser, connection pools and the JIT are set up before measuring. */
const WARM_UP_BYTES = 1024 * 1024;

function withSize(url: string, size: number): string {
  const parsed = new URL(url);
  parsed.searchParams.set('size', String(size));
  return parsed.toString();
}

function publishRequest(mediaUrl: string): PublishRequest {
  const now = new Date();
  const post: Post = {
    id: randomUUID(),
    accountId: randomUUID(),
    createdBy: randomUUID(),
    content: 'Benchmark upload',
    mediaUrls: [mediaUrl],
    platformOptions: {},
    thread: [],
    firstComment: null,
    scheduledAt: null,
    seriesId: null,
    rejectionReason: null,
    status: 'publishing',
    createdAt: now,
    updatedAt: now,
  };
  const target: PostTarget = {
    id: randomUUID(),
    postId: post.id,
    platform: 'youtube',
    socialAccountId: randomUUID(),
    sandbox: false,
    status: 'publishing',
    attempts: 1,
    errorCode: null,
    errorMessage: null,
    retryable: null,
    platformPostId: null,
    platformUrl: null,
    threadPostIds: [],
    firstCommentId: null,
    resumeState: null,
    leaseExpiresAt: null,
    publishedAt: null,
    unpublish: null,
    updatedAt: now,
  };
  return {
    post,
    target,
    connection: {
      id: target.socialAccountId,
      platform: 'youtube',
      externalId: 'UC-bench',
      accessToken: 'ya29.bench',
      refreshToken: null,
      tokenExpiresAt: null,
      platformData: null,
    },
    saveProgress: async () => {},
    intent: null,
    recordIntent: async () => {},
    clearIntent: async () => {},
    saveTokens: async () => {},
    beforeCountedCall: async () => {},
    signal: new AbortController().signal,
  };
}

const registry = createPlatformRegistry({
  settings: { youtube: { apiBaseUrl: youtubeBase, tokenBaseUrl: youtubeBase } },
  // The media server is on loopback: the SSRF guard must let it through (as
  // MEDIA_ALLOW_PRIVATE_NETWORKS does).
  mediaDispatcher: createGuardedDispatcher({ allowPrivateNetworks: true, label: 'media' }),
});

async function viaAdapter(mediaUrl: string): Promise<string> {
  const publisher = registry.get('youtube');
  if (!publisher) throw new Error('no youtube publisher');
  const outcome = await publisher.publish(publishRequest(mediaUrl));
  if (outcome.kind !== 'published') {
    throw new Error(`upload ${outcome.kind}: ${JSON.stringify(outcome)}`);
  }
  return outcome.platformPostId;
}

/** The least an upload can do: open the session, then pipe the media GET body into one PUT. */
async function viaBarePipe(mediaUrl: string, bytes: number): Promise<string> {
  const start = await request(
    `${youtubeBase}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
    {
      method: 'POST',
      headers: {
        authorization: 'Bearer ya29.bench',
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(bytes),
        'x-upload-content-type': 'video/mp4',
      },
      body: JSON.stringify({
        snippet: { title: 'Benchmark upload' },
        status: { privacyStatus: 'private' },
      }),
    },
  );
  await start.body.dump();
  const location = start.headers.location;
  if (typeof location !== 'string') throw new Error(`session start answered ${start.statusCode}`);
  const media = await request(mediaUrl);
  const put = await request(location, {
    method: 'PUT',
    headers: {
      authorization: 'Bearer ya29.bench',
      'content-type': 'video/mp4',
      'content-length': String(bytes),
    },
    body: media.body,
  });
  const text = await put.body.text();
  if (put.statusCode !== 200 && put.statusCode !== 201)
    throw new Error(`PUT answered ${put.statusCode}`);
  return (JSON.parse(text) as { id: string }).id;
}

onParentMessage(async (message) => {
  if (message.type !== 'go') return;
  const upload = (url: string, bytes: number) =>
    kind === 'floor' ? viaBarePipe(url, bytes) : viaAdapter(url);
  await upload(withSize(MEDIA_URL, WARM_UP_BYTES), WARM_UP_BYTES);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const start = process.memoryUsage();
  const before = start.rss;
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  /** What held the memory at the RSS peak: Buffers (arrayBuffers) or the JS heap. */
  let atPeak = { arrayBuffers: start.arrayBuffers, heapUsed: start.heapUsed };
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    if (usage.rss > peak) {
      peak = usage.rss;
      atPeak = { arrayBuffers: usage.arrayBuffers, heapUsed: usage.heapUsed };
    }
  }, 5);
  const started = performance.now();
  try {
    const videoId = await upload(MEDIA_URL, BYTES);
    const ms = performance.now() - started;
    clearInterval(sampler);
    const after = process.memoryUsage.rss();
    peak = Math.max(peak, after);
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    toParent({
      type: 'done',
      videoId,
      ms,
      rssBefore: before,
      rssPeak: peak,
      buffersGrowthAtPeak: atPeak.arrayBuffers - start.arrayBuffers,
      heapGrowthAtPeak: atPeak.heapUsed - start.heapUsed,
      // The kernel's high-water mark: catches a peak between two samples.
      maxRssGrowth: Math.max(0, maxRssAfter - Math.max(maxRssBefore, before)),
    });
  } catch (error) {
    clearInterval(sampler);
    toParent({ type: 'done', error: error instanceof Error ? error.message : String(error) });
  }
});

toParent({ type: 'ready' });
