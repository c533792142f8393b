/** The events of the catalogue the service sends today: who causes them, what they say, who receives them. */
import { describe, expect, it } from 'vitest';
import {
  cancelPost,
  connectSocialAccount,
  createPost,
  createPostBatch,
  createRepeatingPost,
  createWebhook,
  deleteSocialAccount,
  editPost,
  processPublishJob,
  type WebhookDelivery,
  type WebhookEvent,
} from '../src/index.ts';
import {
  createTestDeps,
  failedOutcome,
  seedConnection,
  seedUser,
  type TestDeps,
} from '../src/testing/index.ts';
import { errorOf, jobCtx, unwrap } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VIDEO = 'https://cdn.example.com/clip.mp4';
const ALL = [
  'post.created',
  'post.updated',
  'post.cancelled',
  'post.published',
  'post.partial',
  'post.failed',
  'post.target.published',
  'post.target.failed',
  'post.metrics_updated',
  'social_account.connected',
  'social_account.expired',
  'social_account.disconnected',
] as const;

async function setup() {
  const deps = createTestDeps();
  const alice = await seedUser(deps, 'alice@example.com');
  const tiktok = await seedConnection(deps, alice.user.id, 'tiktok');
  const youtube = await seedConnection(deps, alice.user.id, 'youtube');
  return { deps, alice, tiktok, youtube };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function hook(
  { deps, alice }: Setup,
  events: readonly WebhookEvent[] = ALL,
  socialAccountIds?: string[],
) {
  return unwrap(
    await createWebhook(deps, alice.ctx, {
      url: `https://hooks.example.com/${deps.ids.newId()}`,
      events: [...events],
      ...(socialAccountIds ? { social_account_ids: socialAccountIds } : {}),
    }),
  );
}

const deliveries = (deps: TestDeps, event?: WebhookEvent, webhookId?: string) =>
  [...deps.store.tables.deliveries.values()].filter(
    (d) => (!event || d.event === event) && (!webhookId || d.webhookId === webhookId),
  );
const body = (delivery: WebhookDelivery | undefined) => JSON.parse(delivery?.payload ?? '{}');

const post = (s: Setup, scheduledAt?: string) =>
  createPost(
    s.deps,
    s.alice.ctx,
    {
      content: 'hello',
      social_account_ids: [s.tiktok.id, s.youtube.id],
      media_urls: [VIDEO],
      ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
    },
    scheduledAt ? 'scheduled' : 'now',
  ).then(unwrap);

describe('webhook events', () => {
  it('post.created: the post, its status, time and targets; event_id last', async () => {
    const s = await setup();
    await hook(s);
    const created = await post(s, '2026-02-01T10:00:00.000Z');
    const [delivery] = deliveries(s.deps, 'post.created');
    expect(delivery).toMatchObject({ postId: created.id, accountId: s.alice.user.id });
    const payload = body(delivery);
    expect(Object.keys(payload)).toEqual([
      'event',
      'account_id',
      'post_id',
      'timestamp',
      'data',
      'event_id',
    ]);
    expect(payload).toEqual({
      event: 'post.created',
      account_id: s.alice.user.id,
      post_id: created.id,
      timestamp: s.deps.clock.now().toISOString(),
      data: {
        status: 'scheduled',
        scheduled_at: '2026-02-01T10:00:00.000Z',
        targets: created.targets.map((t) => ({
          target_id: t.id,
          platform: t.platform,
          social_account_id: t.socialAccountId,
        })),
      },
      event_id: expect.stringMatching(UUID),
    });
    expect(s.deps.queue.enqueued).toContainEqual({
      kind: 'deliver',
      id: delivery?.id,
      runAt: null,
    });
  });

  it('one event_id for every webhook receiving an event, another for the next event', async () => {
    const s = await setup();
    const [a, b] = [await hook(s), await hook(s)];
    await post(s);
    const created = deliveries(s.deps, 'post.created');
    expect(created.map((d) => d.webhookId).sort()).toEqual([a.id, b.id].sort());
    expect(created[0]?.id).not.toBe(created[1]?.id);
    expect(body(created[0]).event_id).toBe(body(created[1]).event_id);
    expect(created[0]?.payload).toBe(created[1]?.payload);
    await processPublishJob(s.deps, created[0]?.postId ?? '', jobCtx());
    const ids = new Set(deliveries(s.deps).map((d) => body(d).event_id));
    // created, two target.published, published: four events, each to both webhooks.
    expect(deliveries(s.deps)).toHaveLength(8);
    expect(ids.size).toBe(4);
  });

  it('post.target.published and post.target.failed when a target ends, then the outcome', async () => {
    const s = await setup();
    await hook(s);
    s.deps.platforms
      .publisher('youtube')
      .script(failedOutcome('uploadLimitExceeded', 'limit', false));
    const created = await post(s);
    await processPublishJob(s.deps, created.id, jobCtx());
    const [tiktokTarget, youtubeTarget] =
      (await s.deps.repos.posts.findById(created.id))?.targets ?? [];
    expect(body(deliveries(s.deps, 'post.target.published')[0]).data).toEqual({
      target_id: tiktokTarget?.id,
      platform: 'tiktok',
      social_account_id: s.tiktok.id,
      platform_post_id: `tiktok-${tiktokTarget?.id}`,
      platform_url: tiktokTarget?.platformUrl,
    });
    expect(body(deliveries(s.deps, 'post.target.failed')[0]).data).toEqual({
      target_id: youtubeTarget?.id,
      platform: 'youtube',
      social_account_id: s.youtube.id,
      error_code: 'uploadLimitExceeded',
      error_message: 'limit',
    });
    expect(deliveries(s.deps).map((d) => d.event)).toEqual([
      'post.created',
      'post.target.published',
      'post.target.failed',
      'post.partial',
    ]);
  });

  it('a webhook filtered by connection receives only events about its connections', async () => {
    const s = await setup();
    const other = await seedConnection(s.deps, s.alice.user.id, 'twitter');
    const onlyTiktok = await hook(s, ALL, [s.tiktok.id]);
    const onlyOther = await hook(s, ALL, [other.id]);
    const created = await post(s);
    await processPublishJob(s.deps, created.id, jobCtx());
    expect(deliveries(s.deps, undefined, onlyTiktok.id).map((d) => d.event)).toEqual([
      'post.created',
      'post.target.published',
      'post.published',
    ]);
    expect(body(deliveries(s.deps, 'post.target.published', onlyTiktok.id)[0]).data.platform).toBe(
      'tiktok',
    );
    expect(deliveries(s.deps, undefined, onlyOther.id)).toEqual([]);
  });

  it('post.updated on an edit, post.cancelled on a cancel', async () => {
    const s = await setup();
    await hook(s);
    const created = await post(s, '2026-02-01T10:00:00.000Z');
    unwrap(
      await editPost(s.deps, s.alice.actor, created.id, {
        content: 'edited',
        scheduled_at: '2026-02-02T10:00:00.000Z',
      }),
    );
    expect(body(deliveries(s.deps, 'post.updated')[0]).data).toMatchObject({
      status: 'scheduled',
      scheduled_at: '2026-02-02T10:00:00.000Z',
    });
    unwrap(await cancelPost(s.deps, s.alice.actor, created.id));
    unwrap(await cancelPost(s.deps, s.alice.actor, created.id));
    const cancelled = deliveries(s.deps, 'post.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(body(cancelled[0]).data.status).toBe('cancelled');
    expect(s.deps.queue.enqueued).toContainEqual({
      kind: 'deliver',
      id: cancelled[0]?.id,
      runAt: null,
    });
  });

  it('post.created once per post of a batch and per occurrence of a series', async () => {
    const s = await setup();
    await hook(s, ['post.created']);
    const items = [1, 2, 3].map((n) => ({
      input: { content: `n${n}`, social_account_ids: [s.tiktok.id], media_urls: [VIDEO] },
    }));
    await createPostBatch(s.deps, s.alice.ctx, [...items, { input: 'not a post' }]);
    expect(deliveries(s.deps, 'post.created')).toHaveLength(3);
    unwrap(
      await createRepeatingPost(
        s.deps,
        s.alice.ctx,
        {
          content: 'daily',
          social_account_ids: [s.tiktok.id],
          media_urls: [VIDEO],
          scheduled_at: '2026-01-05T08:00:00Z',
        },
        { rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Berlin' },
      ),
    );
    const posts = [...s.deps.store.tables.posts.values()];
    expect(posts.length).toBeGreaterThan(4);
    const announced = deliveries(s.deps, 'post.created').map((d) => d.postId);
    expect(new Set(announced)).toEqual(new Set(posts.map((p) => p.id)));
    expect(announced).toHaveLength(posts.length);
  });

  it('social_account.connected on connect (tokens, sandbox), social_account.disconnected on delete', async () => {
    const s = await setup();
    await hook(s);
    const connected = unwrap(
      await connectSocialAccount(s.deps, s.alice.ctx, {
        platform: 'twitter',
        externalId: 'tw-1',
        accessToken: 'token',
        displayName: 'Alice',
      }),
    );
    unwrap(await connectSocialAccount(s.deps, s.alice.ctx, { platform: 'tiktok', sandbox: true }));
    const [first, sandbox] = deliveries(s.deps, 'social_account.connected');
    expect(first?.postId).toBeNull();
    const payload = body(first);
    expect(Object.keys(payload)).toEqual([
      'event',
      'account_id',
      'social_account_id',
      'platform',
      'timestamp',
      'data',
      'event_id',
    ]);
    expect(payload).toMatchObject({
      social_account_id: connected.id,
      platform: 'twitter',
      data: { display_name: 'Alice', sandbox: false, reconnected: false },
    });
    expect(body(sandbox).data.sandbox).toBe(true);
    unwrap(await deleteSocialAccount(s.deps, s.alice.actor, connected.id));
    expect(body(deliveries(s.deps, 'social_account.disconnected')[0])).toMatchObject({
      social_account_id: connected.id,
      platform: 'twitter',
      data: { display_name: 'Alice' },
    });
  });
});

describe('webhook connection filters', () => {
  it('takes 1-100 distinct connections of the account; names the unknown ones', async () => {
    const s = await setup();
    const bob = await seedUser(s.deps);
    const bobs = await seedConnection(s.deps, bob.user.id, 'tiktok');
    const create = (ids: unknown) =>
      createWebhook(s.deps, s.alice.ctx, {
        url: 'https://hooks.example.com/x',
        events: ['post.created'],
        social_account_ids: ids,
      });
    const filtered = unwrap(await create([s.tiktok.id]));
    expect(filtered.socialAccountIds).toEqual([s.tiktok.id]);
    const foreign = errorOf(await create([s.tiktok.id, bobs.id]));
    expect(foreign).toMatchObject({ code: 'validation_failed' });
    expect(foreign.message + JSON.stringify(foreign)).toContain(bobs.id);
    expect(errorOf(await create([])).code).toBe('validation_failed');
    expect(errorOf(await create([s.tiktok.id, s.tiktok.id])).code).toBe('validation_failed');
    expect(errorOf(await create(['nope'])).code).toBe('validation_failed');
    const tooMany = Array.from({ length: 101 }, () => s.deps.ids.newId());
    expect(errorOf(await create(tooMany)).code).toBe('validation_failed');
    expect(unwrap(await create(undefined)).socialAccountIds).toBeNull();
  });
});

describe('events of a committed change', () => {
  it('a storage error while storing them is logged; the change still answers', async () => {
    const s = await setup();
    await hook(s);
    const list = s.deps.repos.webhooks.listActiveForEvent;
    s.deps.repos.webhooks.listActiveForEvent = async () => {
      throw new Error('database went away');
    };
    const created = await post(s);
    s.deps.repos.webhooks.listActiveForEvent = list;
    expect(await s.deps.repos.posts.findById(created.id)).not.toBeNull();
    expect(deliveries(s.deps)).toEqual([]);
    const errors = s.deps.logger.entries.filter((entry) => entry.level === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        obj: { events: ['post.created'], err: 'database went away' },
      }),
    ]);
  });
});
