import type {
  Platform,
  PlatformData,
  PlatformOptions,
  Post,
  PostTarget,
  PublishIntent,
  PublishOutcome,
  PublishRequest,
  RefreshedTokens,
  ResumeState,
} from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import type { Dispatcher } from 'undici';
import { createPlatformRegistry, type PlatformsConfig } from '../src/index.ts';

// The fakes live in the private test kit (not a dependency of this package: imported by path).
export * from '../../testkit/src/fakes/index.ts';

/** Media fetches in tests go to 127.0.0.1: the guard with private networks allowed. */
export const testMediaDispatcher: Dispatcher = createGuardedDispatcher({
  allowPrivateNetworks: true,
  label: 'adapter-platforms tests',
});

type Section = Record<string, string | undefined>;
type SectionOverrides = {
  tiktok?: Section;
  instagram?: Section;
  youtube?: Section;
  twitter?: Section;
  linkedin?: Section;
  facebook?: Section;
  threads?: Section;
  bluesky?: Section;
  mastodon?: Section;
  pinterest?: Section;
  telegram?: Section;
  discord?: Section;
};

/**
 * A config for tests. Besides the PlatformsConfig fields, a key named after a platform replaces
 * that platform's settings, e.g. `testConfig({ tiktok: { apiBaseUrl: fake.baseUrl } })`.
 */
export function testConfig(
  overrides: Partial<Omit<PlatformsConfig, 'settings'>> & SectionOverrides = {},
): PlatformsConfig {
  const {
    pollIntervalMs,
    pollTimeoutMs,
    requestTimeoutMs,
    mediaDispatcher,
    mediaAllowPrivateNetworks,
    apiDispatcher,
    ...sections
  } = overrides;
  const settings: Record<string, Section> = {
    tiktok: {
      apiBaseUrl: 'http://127.0.0.1:9',
      tokenBaseUrl: 'http://127.0.0.1:9',
      clientId: 'ck-test',
      clientSecret: 'cs-test',
    },
    instagram: { apiBaseUrl: 'http://127.0.0.1:9', graphVersion: 'v21.0' },
    youtube: {
      apiBaseUrl: 'http://127.0.0.1:9',
      tokenBaseUrl: 'http://127.0.0.1:9',
      clientId: 'client-id',
      clientSecret: 'client-secret',
    },
    twitter: {
      apiBaseUrl: 'http://127.0.0.1:9',
      tokenBaseUrl: 'http://127.0.0.1:9',
      clientId: 'x-client',
      clientSecret: 'x-secret',
    },
    linkedin: {
      apiBaseUrl: 'http://127.0.0.1:9',
      tokenBaseUrl: 'http://127.0.0.1:9',
      clientId: 'li-client',
      clientSecret: 'li-secret',
      apiVersion: '202510',
      organizations: 'true',
    },
    facebook: { apiBaseUrl: 'http://127.0.0.1:9', graphVersion: 'v21.0' },
    threads: { apiBaseUrl: 'http://127.0.0.1:9' },
    bluesky: { serviceUrl: 'http://127.0.0.1:9', rateLimit: 'off' },
    ...sections,
  };
  return {
    settings,
    pollIntervalMs: pollIntervalMs ?? 5,
    pollTimeoutMs: pollTimeoutMs ?? 5_000,
    mediaDispatcher: mediaDispatcher ?? testMediaDispatcher,
    // The fakes are on 127.0.0.1, like media: user-given servers (a Mastodon instance) too.
    mediaAllowPrivateNetworks: mediaAllowPrivateNetworks ?? true,
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(apiDispatcher === undefined ? {} : { apiDispatcher }),
  };
}

export function publisherFor(platform: Platform, config: PlatformsConfig) {
  const publisher = createPlatformRegistry(config).get(platform);
  if (!publisher) throw new Error(`no publisher for ${platform}`);
  return publisher;
}

export interface Harness {
  request: PublishRequest;
  /** Every saveProgress call, in order (the last one is what the store holds). */
  progress: ResumeState[];
  /** Every saveTokens call. */
  tokens: RefreshedTokens[];
  /** Every recordIntent (its step) and clearIntent (null) call, in order. */
  intents: Array<string | null>;
  /** The intent the store holds now (saveProgress and clearIntent end it). */
  pendingIntent(): PublishIntent | null;
  /** fake.requests.length (or whatever `countedMark` gives) at each beforeCountedCall. */
  countedAt: number[];
  controller: AbortController;
}

export interface RequestInput {
  platform: Platform;
  content?: string;
  mediaUrls?: string[];
  platformOptions?: PlatformOptions;
  thread?: Post['thread'];
  firstComment?: string;
  accessToken?: string;
  refreshToken?: string | null;
  externalId?: string;
  /** The connection's platform data (a Mastodon instance...). */
  platformData?: PlatformData | null;
  resumeState?: ResumeState | null;
  /** An intent left by an earlier run (a crash after recordIntent). */
  intent?: PublishIntent | null;
  /** What the counted-call hook records (e.g. how many requests a fake has seen). */
  countedMark?: () => number;
  /** The pacer's answer at the counted call (default: go ahead). */
  pace?: () => Promise<void>;
  targetId?: string;
}

let sequence = 0;

/** A publish request whose saveProgress/saveTokens behave like the store (last write wins). */
export function makeRequest(input: RequestInput): Harness {
  sequence += 1;
  const now = new Date();
  const post: Post = {
    id: `00000000-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
    accountId: 'acc-1',
    createdBy: 'user-1',
    seriesId: null,
    rejectionReason: null,
    content: input.content ?? 'Hello from the tests\nSecond line',
    mediaUrls: input.mediaUrls ?? [],
    platformOptions: input.platformOptions ?? {},
    thread: input.thread ?? [],
    firstComment: input.firstComment ?? null,
    scheduledAt: null,
    status: 'publishing',
    createdAt: now,
    updatedAt: now,
  };
  const target: PostTarget = {
    id: input.targetId ?? `10000000-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
    postId: post.id,
    platform: input.platform,
    socialAccountId: 'conn-1',
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
    resumeState: input.resumeState ?? null,
    leaseExpiresAt: null,
    publishedAt: null,
    unpublish: null,
    updatedAt: now,
  };
  const progress: ResumeState[] = [];
  const tokens: RefreshedTokens[] = [];
  const intents: Array<string | null> = [];
  const countedAt: number[] = [];
  let pending: PublishIntent | null = input.intent ?? null;
  const controller = new AbortController();
  const request: PublishRequest = {
    post,
    target,
    intent: input.intent ?? null,
    recordIntent: async (step) => {
      intents.push(step);
      pending = { step, at: new Date() };
    },
    clearIntent: async () => {
      intents.push(null);
      pending = null;
    },
    connection: {
      id: 'conn-1',
      platform: input.platform,
      externalId: input.externalId ?? '17841400000000001',
      accessToken: input.accessToken ?? 'access-1',
      refreshToken: input.refreshToken === undefined ? 'refresh-1' : input.refreshToken,
      tokenExpiresAt: null,
      platformData: input.platformData ?? null,
    },
    saveProgress: async (state) => {
      progress.push(structuredClone(state));
      target.resumeState = structuredClone(state);
      pending = null;
    },
    saveTokens: async (fresh) => {
      tokens.push(fresh);
    },
    beforeCountedCall: async () => {
      countedAt.push(input.countedMark?.() ?? 0);
      await input.pace?.();
    },
    signal: controller.signal,
  };
  return {
    request,
    progress,
    tokens,
    intents,
    pendingIntent: () => pending,
    countedAt,
    controller,
  };
}

/** The request a worker would build after a crash: same post/target, stored resume state. */
export function afterCrash(previous: Harness, resumeState?: ResumeState | null): Harness {
  const { post, target, connection } = previous.request;
  const last = previous.progress[previous.progress.length - 1] ?? null;
  const latestTokens = previous.tokens[previous.tokens.length - 1];
  const next = makeRequest({
    platform: target.platform,
    content: post.content,
    mediaUrls: post.mediaUrls,
    platformOptions: post.platformOptions,
    thread: post.thread,
    ...(post.firstComment === null ? {} : { firstComment: post.firstComment }),
    accessToken: latestTokens?.accessToken ?? connection.accessToken,
    refreshToken: latestTokens?.refreshToken ?? connection.refreshToken,
    externalId: connection.externalId,
    platformData: connection.platformData,
    resumeState: resumeState === undefined ? last : resumeState,
    intent: previous.pendingIntent(),
    targetId: target.id,
  });
  return next;
}

export function expectPublished(outcome: PublishOutcome) {
  if (outcome.kind !== 'published') {
    throw new Error(`expected published, got ${JSON.stringify(outcome)}`);
  }
  return outcome;
}
