/**
 * The end-to-end scenarios of issues 6 and 7, run against both modes: every step goes through
 * the HTTP API over a real socket; the worker publishes through the real adapters to the fake
 * platforms and delivers webhooks to the verifying receiver. The tests of one file run in order
 * (scripted fake failures must hit the post they are meant for) and share one world.
 */
import type { Static } from 'typebox';
import { expect, it } from 'vitest';
import { INSTAGRAM_ERRORS, YOUTUBE_ERRORS } from '../../../testkit/src/index.ts';
import type { PostJson } from '../../src/schemas/posts.ts';
import type { DeliveryWithAttemptsSchema } from '../../src/schemas/webhooks.ts';
import type { Arrival } from './receiver.ts';
import { type System, waitFor } from './system.ts';

type Delivery = Static<typeof DeliveryWithAttemptsSchema>;
type ConnectedPlatform = 'tiktok' | 'instagram' | 'youtube' | 'twitter';
type HookName = 'published' | 'partial' | 'failed' | 'all' | 'flaky';

export interface World {
  system: System;
  connections: Record<ConnectedPlatform, string>;
  /** Webhook ids by name; each listens at `/<name>` on the receiver. */
  webhooks: Record<HookName, string>;
}

const HOOK_EVENTS: Record<HookName, string[]> = {
  published: ['post.published'],
  partial: ['post.partial'],
  failed: ['post.failed'],
  all: ['post.published', 'post.partial', 'post.failed'],
  // Answers 500 to its first request: the delivery succeeds on the worker's scheduled retry.
  flaky: ['post.published'],
};
const HOOKS = Object.keys(HOOK_EVENTS) as HookName[];
const MEDIA_BYTES = 256 * 1024;
const TERMINAL = new Set(['published', 'partial', 'failed', 'cancelled']);

/** Connects one account per platform and subscribes the webhooks, all through the API. */
export async function setUpWorld(system: System): Promise<World> {
  const { api, receiver } = system;
  const connections = {} as Record<ConnectedPlatform, string>;
  const externalIds: Record<ConnectedPlatform, string> = {
    tiktok: 'tt-open-id-e2e',
    instagram: '17841400000000001',
    youtube: 'UC-e2e-channel',
    twitter: '12345',
  };
  for (const platform of Object.keys(externalIds) as ConnectedPlatform[]) {
    // X has no real publisher yet: its connection is a sandbox one (never calls the platform).
    const created = await api.call<{ data: { id: string } }>(
      'POST',
      '/social-accounts',
      platform === 'twitter'
        ? { platform, sandbox: true, display_name: `${platform} e2e` }
        : {
            platform,
            external_id: externalIds[platform],
            display_name: `${platform} e2e`,
            access_token: `token-${platform}-e2e`,
          },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    connections[platform] = created.body.data.id;
  }
  receiver.answer('/flaky', 500);
  const webhooks = {} as Record<HookName, string>;
  for (const name of HOOKS) {
    const created = await api.call<{ data: { id: string; secret: string } }>('POST', '/webhooks', {
      url: receiver.url(`/${name}`),
      events: HOOK_EVENTS[name],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.secret).toMatch(/^whsec_/);
    receiver.register(`/${name}`, created.body.data.secret);
    webhooks[name] = created.body.data.id;
  }
  return { system, connections, webhooks };
}

// ---------------------------------------------------------------- helpers over the API

async function getPost(world: World, id: string): Promise<PostJson> {
  const response = await world.system.api.call<{ data: PostJson }>('GET', `/posts/${id}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

/** Polls GET /posts/:id until the post is terminal. */
function waitForOutcome(world: World, id: string, timeoutMs = 15_000): Promise<PostJson> {
  return waitFor(
    `post ${id} to finish`,
    async () => {
      const post = await getPost(world, id);
      return TERMINAL.has(post.status) ? post : undefined;
    },
    timeoutMs,
  );
}

async function deliveriesOf(world: World, hook: HookName): Promise<Delivery[]> {
  const response = await world.system.api.call<{ data: Delivery[] }>(
    'GET',
    `/webhooks/${world.webhooks[hook]}/deliveries`,
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

/** Waits until the receiver verified a request for `postId` at each of `hooks`. */
function waitForArrivals(world: World, postId: string, hooks: HookName[]): Promise<Arrival[]> {
  return waitFor(`webhooks of post ${postId} at ${hooks.join(', ')}`, () => {
    const arrivals = world.system.receiver.arrivalsFor(postId);
    const at = new Set(arrivals.map((arrival) => arrival.path));
    return hooks.every((hook) => at.has(`/${hook}`)) ? arrivals : undefined;
  });
}

/** What a post body needs besides content: the four connections and one video. */
function postBody(world: World, tag: string, platforms: ConnectedPlatform[] = allPlatforms) {
  return {
    social_account_ids: platforms.map((platform) => world.connections[platform]),
    media_urls: [world.system.media.url(`${tag}.mp4`, MEDIA_BYTES)],
  };
}
const allPlatforms: ConnectedPlatform[] = ['tiktok', 'instagram', 'youtube', 'twitter'];

const unique = (label: string) =>
  `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

function targetOf(post: PostJson, platform: string) {
  const target = post.post_targets.find((candidate) => candidate.platform === platform);
  if (!target) throw new Error(`post ${post.id} has no ${platform} target`);
  return target;
}

/** The documented payload (docs/api.md#webhook-payload), exactly: these keys in this order, these values. */
function expectPayload(
  arrival: Arrival,
  post: PostJson,
  event: string,
  data: Record<string, unknown>,
): void {
  expect(arrival.event).toBe(event);
  expect(Object.keys(arrival.payload)).toEqual([
    'event',
    'account_id',
    'post_id',
    'timestamp',
    'data',
    'event_id',
  ]);
  expect(arrival.payload).toEqual({
    event,
    account_id: post.account_id,
    post_id: post.id,
    timestamp: expect.any(String),
    data,
    event_id: expect.stringMatching(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    ),
  });
  expect(Object.keys(arrival.payload.data as object)).toEqual(Object.keys(data));
  const timestamp = Date.parse(String(arrival.payload.timestamp));
  expect(new Date(timestamp).toISOString()).toBe(arrival.payload.timestamp);
  expect(timestamp).toBeGreaterThanOrEqual(Date.parse(post.created_at));
  expect(timestamp).toBeLessThanOrEqual(arrival.receivedAt);
}

/** Every request a fake platform or the media server received that mentions `needle`. */
function requestsMentioning(system: System, needle: string): string[] {
  return system
    .fakes()
    .flatMap(({ name, requests }) =>
      requests
        .filter((request) =>
          JSON.stringify([request.path, request.query, request.body]).includes(needle),
        )
        .map((request) => `${name} ${request.path}`),
    );
}

// ---------------------------------------------------------------- the scenarios

export function defineE2eScenarios(get: () => World): void {
  /** Ids shared by later tests: which post reached which outcome. */
  const posts: Record<'published' | 'partial' | 'failed' | 'sentinel' | 'cancelled', string> = {
    published: '',
    partial: '',
    failed: '',
    sentinel: '',
    cancelled: '',
  };

  it('GET /health: the real database and queue answer', async () => {
    const { api, mode } = get().system;
    const response = await fetch(`${api.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      service: 'social-publisher-api',
      checks:
        mode === 'production' ? { database: 'ok', redis: 'ok' } : { database: 'ok', queue: 'ok' },
    });
  });

  it('1. POST /posts to tiktok + instagram + youtube + twitter: published, every platform id, post.published signed and delivered once', async () => {
    const world = get();
    const { api, tiktok, instagram, youtube, media, receiver } = world.system;
    const tag = unique('published');
    const content = `Launch day ${tag}`;
    const body = { content, ...postBody(world, tag) };
    const created = await api.call<{ data: PostJson }>('POST', '/posts', body, {
      'idempotency-key': tag,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get('location')).toBe(`/posts/${created.body.data.id}`);
    expect(created.body.data.status).toBe('queued');
    expect(created.body.data.post_targets.map((target) => target.status)).toEqual([
      'pending',
      'pending',
      'pending',
      'pending',
    ]);
    const postId = created.body.data.id;
    posts.published = postId;

    // A client retrying with the same Idempotency-Key gets the same post, not a second one.
    const replay = await api.call<{ data: PostJson }>('POST', '/posts', body, {
      'idempotency-key': tag,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(postId);

    const post = await waitForOutcome(world, postId);
    expect(post.status).toBe('published');
    expect(post.account_id).toBe(world.system.userId);
    for (const target of post.post_targets) {
      expect(target).toMatchObject({
        status: 'published',
        error_code: null,
        error_message: null,
        platform_post_id: expect.any(String),
      });
      expect(Date.parse(target.published_at ?? '')).not.toBeNaN();
    }

    // Each platform id is the one its platform handed out, and each platform saw one publish.
    const inits = tiktok.publishes.filter(
      (publish) => (publish.body.post_info as { title?: string }).title === content,
    );
    expect(inits).toHaveLength(1);
    expect(targetOf(post, 'tiktok')).toMatchObject({
      platform_post_id: inits[0]?.postId,
      platform_url: `https://www.tiktok.com/@fake.creator/video/${inits[0]?.postId}`,
    });
    expect(inits[0]?.body).toMatchObject({
      post_info: { privacy_level: 'SELF_ONLY' }, // the default when the creator offers it
      source_info: { source: 'PULL_FROM_URL', video_url: body.media_urls[0] },
    });

    const containers = instagram.containers.filter((c) => c.params.caption === content);
    expect(containers).toHaveLength(1);
    expect(containers[0]).toMatchObject({ kind: 'REELS', published: true });
    const igMedia = instagram.media.find((m) => m.containerId === containers[0]?.id);
    expect(targetOf(post, 'instagram')).toMatchObject({
      platform_post_id: igMedia?.id,
      platform_url: igMedia?.permalink,
    });

    const sessions = youtube.sessions.filter(
      (session) =>
        (session.metadata as { snippet?: { title?: string } }).snippet?.title === content,
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.metadata).toMatchObject({ status: { privacyStatus: 'private' } });
    // The video bytes streamed from the media server, all of them, in order.
    expect(sessions[0]).toMatchObject({
      totalBytes: MEDIA_BYTES,
      receivedBytes: MEDIA_BYTES,
      patternOk: true,
    });
    expect(targetOf(post, 'youtube')).toMatchObject({
      platform_post_id: sessions[0]?.videoId,
      platform_url: `https://www.youtube.com/watch?v=${sessions[0]?.videoId}`,
    });
    expect(media.requests.some((request) => request.path === `/media/${tag}.mp4`)).toBe(true);

    const sandboxTarget = targetOf(post, 'twitter');
    expect(sandboxTarget).toMatchObject({
      sandbox: true,
      platform_post_id: `sandbox-${sandboxTarget.id}`,
      platform_url: null,
    });
    expect(post.sandbox).toBe(false); // the other targets are real

    // post.published at its subscribers (/flaky answered 500: it gets it again later).
    const arrivals = await waitForArrivals(world, postId, ['published', 'all', 'flaky']);
    expect(receiver.rejected).toEqual([]);
    const published = receiver.arrivalsFor(postId, '/published');
    expect(published).toHaveLength(1);
    for (const arrival of arrivals) {
      expectPayload(arrival, post, 'post.published', { published: 4, failed: 0, total: 4 });
    }
    expect(new Set(arrivals.map((arrival) => arrival.path))).toEqual(
      new Set(['/published', '/all', '/flaky']),
    );
  });

  it('2. one platform failing permanently (Instagram policy error): partial, its error in GET /posts/:id, post.partial only to its subscribers', async () => {
    const world = get();
    const { api, instagram, receiver } = world.system;
    const tag = unique('partial');
    const content = `Partly ${tag}`;
    instagram.script({ error: INSTAGRAM_ERRORS.policyBlock, on: 'create' });
    const created = await api.call<{ data: PostJson }>('POST', '/posts', {
      content,
      ...postBody(world, tag),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const postId = created.body.data.id;
    posts.partial = postId;

    const post = await waitForOutcome(world, postId);
    expect(post.status).toBe('partial');
    expect(targetOf(post, 'instagram')).toMatchObject({
      status: 'failed',
      error_code: '368',
      error_message: INSTAGRAM_ERRORS.policyBlock.message,
      retryable: false,
      platform_post_id: null,
      platform_url: null,
      published_at: null,
    });
    for (const platform of ['tiktok', 'youtube', 'twitter']) {
      expect(targetOf(post, platform)).toMatchObject({
        status: 'published',
        error_code: null,
        platform_post_id: expect.any(String),
      });
    }
    // Instagram refused the container: nothing was published there.
    expect(instagram.containers.filter((c) => c.params.caption === content)).toEqual([]);

    const arrivals = await waitForArrivals(world, postId, ['partial', 'all']);
    expect(receiver.rejected).toEqual([]);
    for (const arrival of arrivals) {
      expectPayload(arrival, post, 'post.partial', {
        published: 3,
        failed: 1,
        total: 4,
      });
    }
    // Deliveries are created with the outcome, in one transaction: the others have none.
    for (const hook of ['published', 'failed', 'flaky'] as const) {
      const deliveries = await deliveriesOf(world, hook);
      expect(deliveries.filter((delivery) => delivery.post_id === postId)).toEqual([]);
    }
    expect(new Set(arrivals.map((arrival) => arrival.path))).toEqual(new Set(['/partial', '/all']));
  });

  it('3. every target failing (each platform its own way): failed, post.failed without data.published', async () => {
    const world = get();
    const { api, tiktok, instagram, youtube, receiver } = world.system;
    const tag = unique('failed');
    // A second twitter connection, removed before the post runs: a missing connection fails
    // the target before any platform is called.
    const doomed = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'twitter',
      external_id: `doomed-${tag}`,
      access_token: 'token-doomed',
    });
    expect(doomed.status).toBe(201);
    tiktok.script({
      error: 'spam_risk_user_banned_from_posting',
      path: '/v2/post/publish/video/init/',
    });
    // (Rate limits and quotas wait instead of failing: these are permanent refusals.)
    instagram.script({ error: INSTAGRAM_ERRORS.permission, on: 'create' });
    youtube.script({ error: YOUTUBE_ERRORS.uploadLimitExceeded, on: 'start' });

    const scheduledAt = new Date(Date.now() + 1_500).toISOString();
    const created = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: `Nothing goes ${tag}`,
      scheduled_at: scheduledAt,
      ...postBody(world, tag, ['tiktok', 'instagram', 'youtube']),
      social_account_ids: [
        world.connections.tiktok,
        world.connections.instagram,
        world.connections.youtube,
        doomed.body.data.id,
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.status).toBe('scheduled');
    const postId = created.body.data.id;
    posts.failed = postId;
    const removed = await api.call('DELETE', `/social-accounts/${doomed.body.data.id}`);
    expect(removed.status).toBe(204);
    expect(Date.now()).toBeLessThan(Date.parse(scheduledAt)); // removed before the post runs

    const post = await waitForOutcome(world, postId);
    expect(post.status).toBe('failed');
    const codes = Object.fromEntries(
      post.post_targets.map((target) => [target.platform, target.error_code]),
    );
    expect(codes).toEqual({
      tiktok: 'spam_risk_user_banned_from_posting',
      instagram: '10',
      youtube: 'uploadLimitExceeded',
      twitter: 'connection_missing',
    });
    for (const target of post.post_targets) {
      expect(target).toMatchObject({ status: 'failed', retryable: false, platform_post_id: null });
      expect(target.error_message).toBeTruthy();
    }
    expect(targetOf(post, 'youtube').error_message).toBe(
      YOUTUBE_ERRORS.uploadLimitExceeded.message,
    );

    const arrivals = await waitForArrivals(world, postId, ['failed', 'all']);
    expect(receiver.rejected).toEqual([]);
    for (const arrival of arrivals) {
      expectPayload(arrival, post, 'post.failed', {
        failed: 4,
        total: 4,
      });
      expect(arrival.payload.data).not.toHaveProperty('published');
    }
    expect(new Set(arrivals.map((arrival) => arrival.path))).toEqual(new Set(['/failed', '/all']));
  });

  it('4. a post scheduled 2 s ahead and cancelled: 200 cancelled, nothing ever reaches a platform, no webhook', async () => {
    const world = get();
    const { api, receiver } = world.system;
    const tag = unique('cancelled');
    const scheduledAt = new Date(Date.now() + 2_000);
    const created = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: `Never ${tag}`,
      scheduled_at: scheduledAt.toISOString(),
      ...postBody(world, tag),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.status).toBe('scheduled');
    const postId = created.body.data.id;
    posts.cancelled = postId;

    const cancelled = await api.call<{ data: PostJson }>('DELETE', `/posts/${postId}`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.data.status).toBe('cancelled');
    expect(cancelled.body.data.post_targets.map((target) => target.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    const again = await api.call<{ data: PostJson }>('DELETE', `/posts/${postId}`);
    expect(again.status).toBe(200); // cancelling twice is fine

    // A sentinel due just after it, on the same connections: once the worker has published the
    // sentinel, the cancelled post's time has passed too (no fixed sleep needed).
    const sentinelTag = unique('sentinel');
    const sentinelAt = new Date(scheduledAt.getTime() + 250);
    const sentinel = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: `Sentinel ${sentinelTag}`,
      scheduled_at: sentinelAt.toISOString(),
      ...postBody(world, sentinelTag),
    });
    expect(sentinel.status, JSON.stringify(sentinel.body)).toBe(201);
    posts.sentinel = sentinel.body.data.id;
    const done = await waitForOutcome(world, sentinel.body.data.id);
    expect(done.status).toBe('published');
    for (const target of done.post_targets) {
      expect(Date.parse(target.published_at ?? '')).toBeGreaterThanOrEqual(sentinelAt.getTime());
    }
    expect(Date.now()).toBeGreaterThan(scheduledAt.getTime());
    await waitForArrivals(world, sentinel.body.data.id, ['published', 'all', 'flaky']);
    await world.system.worker.reconcileNow(); // and a reconcile pass does not revive it

    const after = await getPost(world, postId);
    expect(after.status).toBe('cancelled');
    for (const target of after.post_targets) {
      expect(target).toMatchObject({
        status: 'cancelled',
        attempts: 0,
        platform_post_id: null,
        published_at: null,
      });
    }
    expect(requestsMentioning(world.system, tag)).toEqual([]);
    expect(requestsMentioning(world.system, sentinelTag).length).toBeGreaterThan(0);
    expect(receiver.arrivalsFor(postId)).toEqual([]);
    const deliveries = await deliveriesOf(world, 'all');
    expect(deliveries.filter((delivery) => delivery.post_id === postId)).toEqual([]);
  });

  it('5. GET /webhooks/:id/deliveries shows each delivery with its attempts; redeliver sends the same webhook-id again', async () => {
    const world = get();
    const { api, receiver } = world.system;
    const postId = posts.published;
    expect(postId).not.toBe('');

    // /published: delivered at the first attempt; the stored payload is the bytes received.
    const [first] = receiver.arrivalsFor(postId, '/published');
    if (!first) throw new Error('no post.published arrival at /published');
    const listed = (await deliveriesOf(world, 'published')).find((d) => d.post_id === postId);
    expect(listed).toMatchObject({
      id: first.webhookId,
      webhook_id: world.webhooks.published,
      event: 'post.published',
      status: 'delivered',
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      payload: first.body.toString('utf8'),
    });
    expect(listed?.attempt_log).toEqual([
      {
        attempt_no: 1,
        status_code: 200,
        error: null,
        duration_ms: expect.any(Number),
        created_at: expect.any(String),
      },
    ]);

    // /flaky: answered 500, then the worker's scheduled retry (about 5 s later) got 200.
    const flaky = await waitFor(
      'the /flaky delivery to succeed on its retry',
      async () => {
        const found = (await deliveriesOf(world, 'flaky')).find((d) => d.post_id === postId);
        return found?.status === 'delivered' ? found : undefined;
      },
      15_000,
      100,
    );
    expect(flaky.attempts).toBe(2);
    expect(
      flaky.attempt_log.map(({ attempt_no, status_code, error }) => ({
        attempt_no,
        status_code,
        error,
      })),
    ).toEqual([
      { attempt_no: 1, status_code: 500, error: 'HTTP 500 Internal Server Error' },
      { attempt_no: 2, status_code: 200, error: null },
    ]);
    const flakyArrivals = receiver.arrivalsFor(postId, '/flaky');
    expect(flakyArrivals.map((arrival) => arrival.answered)).toEqual([500, 200]);
    expect(new Set(flakyArrivals.map((arrival) => arrival.webhookId))).toEqual(new Set([flaky.id]));
    expect(new Set(flakyArrivals.map((arrival) => arrival.body.toString('utf8')))).toEqual(
      new Set([flaky.payload]),
    );

    // Redeliver: 202, the same webhook-id and bytes arrive again, freshly signed.
    const redelivered = await api.call<{ data: { id: string; status: string } }>(
      'POST',
      `/webhooks/${world.webhooks.published}/deliveries/${first.webhookId}/redeliver`,
    );
    expect(redelivered.status, JSON.stringify(redelivered.body)).toBe(202);
    expect(redelivered.body.data.id).toBe(first.webhookId);
    expect(['pending', 'delivered']).toContain(redelivered.body.data.status);
    const second = await waitFor('the redelivery to arrive', () => {
      const arrivals = receiver.arrivalsFor(postId, '/published');
      return arrivals.length >= 2 ? arrivals[1] : undefined;
    });
    expect(receiver.rejected).toEqual([]);
    expect(second.webhookId).toBe(first.webhookId);
    expect(second.body.equals(first.body)).toBe(true);
    const after = await waitFor('the redelivery to be logged', async () => {
      const found = (await deliveriesOf(world, 'published')).find((d) => d.id === first.webhookId);
      return found?.status === 'delivered' && found.attempt_log.length === 2 ? found : undefined;
    });
    expect(after.attempt_log.map((attempt) => attempt.status_code)).toEqual([200, 200]);
  });

  it('every outcome reached exactly the subscribers of its event, once per delivery; no secret is listed, nothing was refused, no error was logged', async () => {
    const world = get();
    const { api, receiver, logs } = world.system;
    for (const id of Object.values(posts)) expect(id).not.toBe('');
    const expected: Record<HookName, string[]> = {
      published: [posts.published, posts.sentinel],
      partial: [posts.partial],
      failed: [posts.failed],
      all: [posts.published, posts.partial, posts.failed, posts.sentinel],
      flaky: [posts.published, posts.sentinel],
    };
    const every: Delivery[] = [];
    for (const hook of HOOKS) {
      const deliveries = await waitFor(`every delivery of /${hook} to be delivered`, async () => {
        const listed = await deliveriesOf(world, hook);
        return listed.every((delivery) => delivery.status === 'delivered') ? listed : undefined;
      });
      // One delivery per post whose event the webhook subscribed to, and no other.
      expect(deliveries.map((delivery) => delivery.post_id).sort()).toEqual(
        [...expected[hook]].sort(),
      );
      for (const delivery of deliveries) {
        expect(HOOK_EVENTS[hook]).toContain(delivery.event);
        const arrivals = receiver.arrivals.filter((arrival) => arrival.webhookId === delivery.id);
        // Every arrival of a delivery came to its webhook's URL with the stored bytes.
        expect(new Set(arrivals.map((arrival) => arrival.path))).toEqual(new Set([`/${hook}`]));
        for (const arrival of arrivals)
          expect(arrival.body.toString('utf8')).toBe(delivery.payload);
        // Sent once per logged attempt: the redelivered and the retried ones twice, others once.
        expect(arrivals).toHaveLength(delivery.attempt_log.length);
      }
      every.push(...deliveries);
    }
    // Nothing arrived that is not a stored delivery.
    const known = new Set(every.map((delivery) => delivery.id));
    expect(receiver.arrivals.filter((arrival) => !known.has(arrival.webhookId))).toEqual([]);
    expect(receiver.arrivalsFor(posts.cancelled)).toEqual([]);
    expect(receiver.rejected).toEqual([]);

    const listed = await api.call<{ data: Array<Record<string, unknown>> }>('GET', '/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(HOOKS.length);
    for (const webhook of listed.body.data) expect(webhook).not.toHaveProperty('secret');

    const errors = logs.filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });

  it("the receiver's checks are real: tampered bytes, a replayed timestamp or another id are refused", async () => {
    const { receiver } = get().system;
    const [original] = receiver.arrivalsFor(posts.published, '/published');
    if (!original) throw new Error('no arrival to replay');
    const headers = Object.fromEntries(
      [
        'content-type',
        'x-social-publisher-event',
        'x-social-publisher-signature',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ].map((name) => [name, original.headers[name] ?? '']),
    );
    const send = async (body: Buffer, changed: Record<string, string> = {}) => {
      const response = await fetch(receiver.url('/published'), {
        method: 'POST',
        headers: { ...headers, ...changed },
        body: new Uint8Array(body),
      });
      return response.status;
    };
    const arrivalsBefore = receiver.arrivals.length;
    const tampered = Buffer.from(original.body.toString('utf8').replace('"total":4', '"total":5'));
    expect(tampered.equals(original.body)).toBe(false);
    expect(await send(tampered)).toBe(401);
    const stale = String(Number(original.webhookTimestamp) - 600);
    expect(await send(original.body, { 'webhook-timestamp': stale })).toBe(401);
    expect(await send(original.body, { 'webhook-id': `${original.webhookId}0` })).toBe(401);
    expect(receiver.rejected.map((rejection) => rejection.why)).toEqual([
      'bad X-Social-Publisher-Signature',
      expect.stringMatching(/^standardwebhooks: .*timestamp too old/i),
      expect.stringMatching(/^standardwebhooks: .*no matching signature/i),
    ]);
    expect(receiver.arrivals).toHaveLength(arrivalsBefore);
  });

  // ------------------------------------------------------------ known bug (see the report)
  // POST .../redeliver promises "a new round of attempts starting now". For a delivery waiting
  // for its next retry, the queue still holds that retry's delayed job under the delivery id
  // (job id = delivery id), so the redeliver's enqueue is deduplicated away (BullMQ and the
  // in-process queue alike) and nothing is sent until the old retry time (5 s here; up to
  // 10 h later in the schedule).
  const backoff = { webhookId: '', deliveryId: '', postId: '', redeliveredAt: 0, firstAt: 0 };

  it('redeliver during a retry backoff: the first attempt failed, redeliver answers 202', async () => {
    const world = get();
    const { api, receiver } = world.system;
    receiver.answer('/backoff', 500);
    const hook = await api.call<{ data: { id: string; secret: string } }>('POST', '/webhooks', {
      url: receiver.url('/backoff'),
      events: ['post.published'],
    });
    expect(hook.status).toBe(201);
    receiver.register('/backoff', hook.body.data.secret);
    backoff.webhookId = hook.body.data.id;
    const created = await api.call<{ data: PostJson }>('POST', '/posts', {
      content: `Backoff ${unique('backoff')}`,
      social_account_ids: [world.connections.twitter],
    });
    expect(created.status).toBe(201);
    backoff.postId = created.body.data.id;

    const pending = await waitFor('the first attempt to fail and be logged', async () => {
      const response = await api.call<{ data: Delivery[] }>(
        'GET',
        `/webhooks/${backoff.webhookId}/deliveries`,
      );
      const [delivery] = response.body.data;
      return delivery?.attempts === 1 ? delivery : undefined;
    });
    expect(pending).toMatchObject({ status: 'pending', last_status_code: 500 });
    const [first] = receiver.arrivalsFor(backoff.postId, '/backoff');
    backoff.firstAt = first?.receivedAt ?? 0;
    backoff.deliveryId = pending.id;
    // The scheduled retry is seconds away: an arrival before it can only be the redelivery.
    expect(Date.parse(pending.next_attempt_at ?? '') - Date.now()).toBeGreaterThan(2_500);

    backoff.redeliveredAt = Date.now();
    const redelivered = await api.call<{ data: { id: string; status: string } }>(
      'POST',
      `/webhooks/${backoff.webhookId}/deliveries/${backoff.deliveryId}/redeliver`,
    );
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.data).toMatchObject({ id: backoff.deliveryId, status: 'pending' });
  });

  it('...and the redelivery is sent now (within 1.5 s), not at the old retry time', async () => {
    const { receiver } = get().system;
    expect(backoff.redeliveredAt).toBeGreaterThan(0);
    await waitFor(
      'the redelivery',
      () => receiver.arrivalsFor(backoff.postId, '/backoff').length >= 2,
      1_500 - (Date.now() - backoff.redeliveredAt),
    );
  });

  it('redeliver during a retry backoff: the delivery still arrives, same webhook-id, delivered', async () => {
    const world = get();
    const { receiver } = world.system;
    const second = await waitFor(
      'the second arrival at /backoff',
      () => receiver.arrivalsFor(backoff.postId, '/backoff')[1],
      10_000,
    );
    expect(second.webhookId).toBe(backoff.deliveryId);
    expect(second.answered).toBe(200);
    expect(receiver.rejected).toHaveLength(3); // the three forged requests above, nothing new
    console.info(
      `[${world.system.mode}] redelivery during backoff arrived ${second.receivedAt - backoff.redeliveredAt} ms after POST redeliver (${second.receivedAt - backoff.firstAt} ms after the failed attempt)`,
    );
  });
}
