import type { SocialAccount } from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  FUTURE,
  type Harness,
  PAST,
  seedConnection,
  seedUser,
} from './support.ts';

const LATER = '2026-07-01T12:00:00Z';
const SOONER = '2026-02-01T08:00:00Z';

let h: Harness;
let twitter: SocialAccount;

beforeEach(async () => {
  h = await createHarness();
  twitter = await seedConnection(h.deps, h.alice.user.id, 'twitter');
});
afterEach(() => h.close());

interface PostJson {
  id: string;
  status: string;
  content: string;
  scheduled_at: string | null;
  media_urls: string[];
  platform_options: Record<string, unknown>;
  post_targets: Array<{
    id: string;
    social_account_id: string;
    status: string;
    published_at: string | null;
  }>;
}

const schedule = async (payload: object = {}): Promise<PostJson> => {
  const response = await h.call({
    method: 'POST',
    url: '/posts/schedule',
    headers: h.as(h.alice),
    payload: {
      content: 'first',
      social_account_ids: [twitter.id],
      scheduled_at: FUTURE,
      ...payload,
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data;
};

const edit = (id: string, payload: object, headers: Record<string, string> = {}) =>
  h.call({
    method: 'PATCH',
    url: `/posts/${id}`,
    headers: { ...h.as(h.alice), ...headers },
    payload,
  });

const stored = async (id: string): Promise<PostJson> =>
  (await h.call({ method: 'GET', url: `/posts/${id}`, headers: h.as(h.alice) })).json().data;

describe('PATCH /posts/:id', () => {
  it('changes the given fields only and answers the post as it now is', async () => {
    const post = await schedule({ media_urls: ['https://cdn.example.com/a.jpg'] });
    const response = await edit(post.id, {
      content: 'second',
      platform_options: { twitter: { replyToTweetId: '12345' } },
    });
    expect(response.statusCode, response.body).toBe(200);
    const edited = response.json().data as PostJson;
    expect(edited).toMatchObject({
      id: post.id,
      status: 'scheduled',
      content: 'second',
      media_urls: ['https://cdn.example.com/a.jpg'],
      platform_options: { twitter: { replyToTweetId: '12345' } },
      scheduled_at: new Date(FUTURE).toISOString(),
    });
    expect(edited.post_targets.map((t) => t.id)).toEqual(post.post_targets.map((t) => t.id));
    expect(await stored(post.id)).toEqual(edited);
    // Nothing moved: the job stays where it was.
    expect(h.deps.queue.cancelled).not.toContain(post.id);
  });

  it('a new scheduled_at moves the job: published at the new time only, once', async () => {
    const post = await schedule();
    const response = await edit(post.id, { scheduled_at: LATER });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.scheduled_at).toBe(new Date(LATER).toISOString());
    expect(h.deps.queue.cancelled).toContain(post.id);
    expect(h.deps.queue.list('publish').map((job) => job.runAt.toISOString())).toEqual([
      new Date(LATER).toISOString(),
    ]);
    await h.deps.runJobs();
    const published = await stored(post.id);
    expect(published.status).toBe('published');
    expect(published.post_targets[0]?.published_at).toBe(new Date(LATER).toISOString());
    expect(h.deps.platforms.allCalls()).toHaveLength(1);
  });

  it('a job left at the old time (a stale or re-added one) does not publish early', async () => {
    const post = await schedule();
    expect((await edit(post.id, { scheduled_at: LATER })).statusCode).toBe(200);
    // The reconciler (or a cancel that lost to a running job) leaves a job at the old time.
    await h.deps.queue.cancelPublish(post.id);
    await h.deps.queue.enqueuePublish(post.id, new Date(FUTURE));
    h.deps.clock.set(FUTURE);
    await h.deps.queue.runDue(h.deps.handlers);
    expect((await stored(post.id)).status).toBe('scheduled');
    expect(h.deps.platforms.allCalls()).toHaveLength(0);
    const waiting = h.deps.queue.list('publish');
    expect(waiting.map((job) => job.runAt.toISOString())).toEqual([new Date(LATER).toISOString()]);
    // Waiting for the stored time is not a failure: it spends no attempt.
    expect(waiting[0]?.attempt).toBe(1);
    await h.deps.runJobs();
    const published = await stored(post.id);
    expect(published.post_targets[0]?.published_at).toBe(new Date(LATER).toISOString());
    expect(h.deps.platforms.allCalls()).toHaveLength(1);
  });

  it('moving the time earlier brings the job forward', async () => {
    const post = await schedule();
    expect((await edit(post.id, { scheduled_at: SOONER })).statusCode).toBe(200);
    expect(h.deps.queue.list('publish').map((job) => job.runAt.toISOString())).toEqual([
      new Date(SOONER).toISOString(),
    ]);
    await h.deps.runJobs();
    expect((await stored(post.id)).post_targets[0]?.published_at).toBe(
      new Date(SOONER).toISOString(),
    );
  });

  it('a post whose time has come but no worker took yet: its text can still change', async () => {
    const post = await schedule();
    h.deps.clock.set(FUTURE);
    const response = await edit(post.id, { content: 'just in time' });
    expect(response.statusCode, response.body).toBe(200);
    await h.deps.runJobs();
    const published = await stored(post.id);
    expect(published).toMatchObject({ status: 'published', content: 'just in time' });
  });

  it('a queued post given a time becomes scheduled', async () => {
    const created = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: { content: 'now', social_account_ids: [twitter.id] },
    });
    const post = created.json().data as PostJson;
    expect(post.status).toBe('queued');
    const response = await edit(post.id, { scheduled_at: LATER });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({
      status: 'scheduled',
      scheduled_at: new Date(LATER).toISOString(),
    });
    await h.deps.queue.runDue(h.deps.handlers);
    expect(h.deps.platforms.allCalls()).toHaveLength(0);
  });

  it('social_account_ids: a left-out connection loses its target, a new one gets one', async () => {
    const linkedin = await seedConnection(h.deps, h.alice.user.id, 'linkedin');
    const post = await schedule();
    const kept = post.post_targets[0];
    const response = await edit(post.id, { social_account_ids: [linkedin.id] });
    expect(response.statusCode, response.body).toBe(200);
    const targets = (response.json().data as PostJson).post_targets;
    expect(targets.map((t) => t.social_account_id)).toEqual([linkedin.id]);
    expect(targets[0]?.status).toBe('pending');

    const both = await edit(post.id, { social_account_ids: [linkedin.id, twitter.id] });
    const after = (both.json().data as PostJson).post_targets;
    expect(after.map((t) => t.social_account_id)).toEqual([linkedin.id, twitter.id]);
    // The linkedin target is the same one: kept connections keep their target.
    expect(after[0]?.id).toBe(targets[0]?.id);
    expect(after[1]?.id).not.toBe(kept?.id);
    await h.deps.runJobs();
    expect(
      h.deps.platforms
        .allCalls()
        .map((call) => call.socialAccountId)
        .sort(),
    ).toEqual([linkedin.id, twitter.id].sort());
  });

  it('an added connection passes the checks of create; a kept one that expired stays', async () => {
    const post = await schedule();
    const foreign = await seedConnection(h.deps, h.bob.user.id, 'tiktok');
    expectInvalid(
      await edit(post.id, { social_account_ids: [twitter.id, foreign.id] }),
      'social_account_ids[1]',
    );
    expectInvalid(await edit(post.id, { social_account_ids: [] }), 'social_account_ids');
    expect(await h.deps.repos.socialAccounts.markExpired(twitter.id, h.deps.clock.now())).toBe(
      true,
    );
    const still = await edit(post.id, { content: 'kept target' });
    expect(still.statusCode, still.body).toBe(200);
    expect((await stored(post.id)).post_targets).toHaveLength(1);
  });

  it('the rules of create: platform limits, a past time, unknown fields: 400, nothing stored', async () => {
    const post = await schedule();
    expectInvalid(await edit(post.id, { content: 'x'.repeat(281) }), /content/);
    expectInvalid(await edit(post.id, { scheduled_at: PAST }), 'scheduled_at');
    expectError(await edit(post.id, { scheduled_at: null }), 400, 'validation_failed');
    expectError(await edit(post.id, { platforms: ['tiktok'] }), 400, 'validation_failed');
    expect(await stored(post.id)).toEqual(post);
  });

  it('once a worker started it, or when finished or cancelled: 409 post_not_editable', async () => {
    const post = await schedule({ scheduled_at: SOONER });
    h.deps.clock.set(SOONER);
    const start = await h.deps.repos.posts.startPublish(post.id, {
      now: h.deps.clock.now(),
      startBefore: h.deps.clock.now(),
      leaseExpiresAt: new Date(Date.parse(SOONER) + 60_000),
    });
    expect(start?.started).toBe(true);
    const publishing = expectError(
      await edit(post.id, { content: 'late' }),
      409,
      'post_not_editable',
    );
    expect(publishing.message).toMatch(/publishing has begun/);

    const other = await schedule();
    await h.call({ method: 'DELETE', url: `/posts/${other.id}`, headers: h.as(h.alice) });
    const cancelled = expectError(await edit(other.id, { content: 'x' }), 409, 'post_not_editable');
    expect(cancelled.message).toMatch(/cancelled/);

    const done = await schedule({ scheduled_at: LATER });
    await h.deps.runJobs();
    expect((await stored(done.id)).status).toBe('published');
    const finished = expectError(await edit(done.id, { content: 'x' }), 409, 'post_not_editable');
    expect(finished.message).toMatch(/already published/);
  });

  it("another account's post: 404", async () => {
    const post = await schedule();
    const carol = await seedUser(h.deps, 'carol@example.com');
    expectError(
      await h.call({
        method: 'PATCH',
        url: `/posts/${post.id}`,
        headers: h.as(carol),
        payload: { content: 'mine now' },
      }),
      404,
      'not_found',
    );
    expectError(await edit('not-a-uuid', { content: 'x' }), 404, 'not_found');
  });

  it('Idempotency-Key: the same request replays the first answer; another body is a 409', async () => {
    const post = await schedule();
    const first = await edit(post.id, { content: 'once' }, { 'idempotency-key': 'edit-1' });
    expect(first.statusCode).toBe(200);
    const again = await edit(post.id, { content: 'once' }, { 'idempotency-key': 'edit-1' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expectError(
      await edit(post.id, { content: 'twice' }, { 'idempotency-key': 'edit-1' }),
      409,
      'idempotency_key_reused',
    );
  });
});
