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
  seedWorkspace,
} from './support.ts';

const POST_KEYS = [
  'account_id',
  'content',
  'created_at',
  'created_by',
  'first_comment',
  'id',
  'media_urls',
  'platform_options',
  'post_targets',
  'rejection_reason',
  'sandbox',
  'scheduled_at',
  'series_id',
  'status',
  'thread',
  'updated_at',
];
const TARGET_KEYS = [
  'attempts',
  'error_code',
  'error_message',
  'first_comment_id',
  'id',
  'platform',
  'platform_post_id',
  'platform_url',
  'published_at',
  'retryable',
  'sandbox',
  'social_account_id',
  'status',
  'thread_post_ids',
  'unpublish',
  'updated_at',
];

let h: Harness;
let twitter: SocialAccount;
let tiktok: SocialAccount;

beforeEach(async () => {
  h = await createHarness();
  twitter = await seedConnection(h.deps, h.alice.user.id, 'twitter');
  tiktok = await seedConnection(h.deps, h.alice.user.id, 'tiktok');
});
afterEach(() => h.close());

const createPost = (payload: object, headers: Record<string, string> = {}) =>
  h.call({ method: 'POST', url: '/posts', headers: { ...h.as(h.alice), ...headers }, payload });

describe('POST /posts', () => {
  it('creates a queued post with one target per connection: 201, Location, snake_case shape', async () => {
    const response = await createPost({ content: 'hello', social_account_ids: [twitter.id] });
    expect(response.statusCode).toBe(201);
    const post = response.json().data;
    expect(response.headers.location).toBe(`/posts/${post.id}`);
    expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    expect(post).toMatchObject({
      account_id: h.alice.user.id,
      created_by: h.alice.user.id,
      content: 'hello',
      media_urls: [],
      platform_options: {},
      scheduled_at: null,
      status: 'queued',
    });
    expect(post.post_targets).toHaveLength(1);
    expect(Object.keys(post.post_targets[0]).sort()).toEqual(TARGET_KEYS);
    expect(post.post_targets[0]).toMatchObject({
      platform: 'twitter',
      social_account_id: twitter.id,
      status: 'pending',
      attempts: 0,
      error_code: null,
    });
    expect(response.body).not.toContain('resume_state');
    // The job carries the request id, so the worker's log lines can be joined to this request.
    expect(h.deps.queue.enqueued).toContainEqual({
      kind: 'publish',
      id: post.id,
      runAt: null,
      requestId: response.headers['x-request-id'],
    });
  });

  it('content defaults to an empty string; 5000 characters are fine', async () => {
    const empty = await createPost({ social_account_ids: [twitter.id] });
    expect(empty.json().data.content).toBe('');
    // On a platform whose own limit is above the shared one (X's 280 would refuse it).
    const facebook = await seedConnection(h.deps, h.alice.user.id, 'facebook');
    const full = await createPost({ content: 'é'.repeat(5000), social_account_ids: [facebook.id] });
    expect(full.statusCode).toBe(201);
    const long = await createPost({ content: 'x'.repeat(281), social_account_ids: [twitter.id] });
    expectInvalid(long, 'content');
  });

  it('legacy platforms target the account context active connection', async () => {
    const response = await createPost({ content: 'x', platforms: ['twitter'] });
    expect(response.statusCode).toBe(201);
    expect(response.json().data.post_targets[0].social_account_id).toBe(twitter.id);
  });

  it('keeps media and platform options', async () => {
    const response = await createPost({
      content: 'clip',
      social_account_ids: [tiktok.id],
      media_urls: ['https://cdn.example.com/clip.mp4'],
      platform_options: { tiktok: { tiktokPrivacy: 'SELF_ONLY', tiktokAllowDuet: false } },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({
      media_urls: ['https://cdn.example.com/clip.mp4'],
      platform_options: { tiktok: { tiktokPrivacy: 'SELF_ONLY', tiktokAllowDuet: false } },
    });
  });

  describe('validation (docs/api.md#post-body) -> 400 validation_failed with details', () => {
    it('at least one target is required', async () => {
      expectInvalid(await createPost({ content: 'x' }), 'social_account_ids');
      expectInvalid(
        await createPost({ content: 'x', social_account_ids: [], platforms: [] }),
        'social_account_ids',
      );
    });

    it('content is at most 5000 characters', async () => {
      expectInvalid(
        await createPost({ content: 'a'.repeat(5001), social_account_ids: [twitter.id] }),
        'content',
      );
    });

    it('tiktok requires media', async () => {
      expectInvalid(
        await createPost({ content: 'x', social_account_ids: [tiktok.id] }),
        'media_urls',
      );
    });

    it('instagram requires media', async () => {
      const instagram = await seedConnection(h.deps, h.alice.user.id, 'instagram');
      expectInvalid(
        await createPost({ content: 'x', social_account_ids: [instagram.id] }),
        'media_urls',
      );
    });

    it('youtube rejects photos', async () => {
      const youtube = await seedConnection(h.deps, h.alice.user.id, 'youtube');
      const response = await createPost({
        content: 'x',
        social_account_ids: [youtube.id],
        media_urls: ['https://cdn.example.com/photo.jpg'],
      });
      expectInvalid(response, 'media_urls[0]');
    });

    it('scheduled_at is not accepted on POST /posts, and the error names the route to use', async () => {
      const response = await createPost({
        content: 'x',
        social_account_ids: [twitter.id],
        scheduled_at: FUTURE,
      });
      expectInvalid(response, 'scheduled_at');
      expect(response.body).toContain('POST /posts/schedule');
    });

    it("another account's connection is refused without telling whether it exists", async () => {
      const bobs = await seedConnection(h.deps, h.bob.user.id, 'twitter');
      const foreign = await createPost({ content: 'x', social_account_ids: [bobs.id] });
      const unknown = await createPost({
        content: 'x',
        social_account_ids: ['00000000-0000-7000-8000-0000000fffff'],
      });
      expectInvalid(foreign, 'social_account_ids[0]');
      expectInvalid(unknown, 'social_account_ids[0]');
      expect(foreign.json().error.details).toEqual(unknown.json().error.details);
    });

    it('legacy platforms without a connection: 400 naming the platform', async () => {
      const error = expectError(await createPost({ content: 'x', platforms: ['linkedin'] }), 400);
      expect(JSON.stringify(error.details)).toContain('linkedin');
    });

    it('types, unknown fields and enum values are checked by the schema', async () => {
      const response = await createPost({
        content: 5,
        social_account_ids: ['not-a-uuid'],
        platforms: ['myspace'],
        media_urls: 'https://x.example/a.mp4',
        surprise: true,
        platform_options: { tiktok: { tiktokPrivacy: 'EVERYONE', bogus: 1 } },
      });
      const fields = (expectError(response, 400, 'validation_failed').details ?? []).map(
        (d) => d.field,
      );
      expect(fields).toEqual(
        expect.arrayContaining([
          'content',
          'social_account_ids[0]',
          'platforms[0]',
          'media_urls',
          'surprise',
          'platform_options.tiktok.tiktokPrivacy',
          'platform_options.tiktok.bogus',
        ]),
      );
    });

    it('a body that is not an object is a validation error, an empty body too', async () => {
      expectInvalid(await createPost([1, 2] as unknown as object), 'body');
      const empty = await h.call({
        method: 'POST',
        url: '/posts',
        headers: { ...h.as(h.alice), 'content-type': 'application/json' },
        payload: '',
      });
      expectInvalid(empty, 'body');
    });
  });
});

describe('POST /posts/schedule', () => {
  const schedule = (payload: object) =>
    h.call({ method: 'POST', url: '/posts/schedule', headers: h.as(h.alice), payload });

  it('creates a scheduled post and a delayed job', async () => {
    const response = await schedule({
      content: 'later',
      social_account_ids: [twitter.id],
      scheduled_at: FUTURE,
    });
    expect(response.statusCode).toBe(201);
    const post = response.json().data;
    expect(response.headers.location).toBe(`/posts/${post.id}`);
    expect(post.status).toBe('scheduled');
    expect(post.scheduled_at).toBe(new Date(FUTURE).toISOString());
    expect(h.deps.queue.enqueued).toContainEqual({
      kind: 'publish',
      id: post.id,
      runAt: new Date(FUTURE),
      requestId: expect.any(String),
    });
  });

  it('scheduled_at must be in the future', async () => {
    expectInvalid(
      await schedule({ content: 'x', social_account_ids: [twitter.id], scheduled_at: PAST }),
      'scheduled_at',
    );
  });

  it('scheduled_at is required and must be an ISO date-time', async () => {
    expectInvalid(
      await schedule({ content: 'x', social_account_ids: [twitter.id] }),
      'scheduled_at',
    );
    expectInvalid(
      await schedule({ content: 'x', social_account_ids: [twitter.id], scheduled_at: 'tomorrow' }),
      'scheduled_at',
    );
  });

  it('the other rules apply too (no target)', async () => {
    expectInvalid(await schedule({ content: 'x', scheduled_at: FUTURE }), 'social_account_ids');
  });
});

describe('GET /posts and GET /posts/:id', () => {
  it("lists the caller's posts newest first, each with post_targets", async () => {
    const first = (await createPost({ content: 'one', social_account_ids: [twitter.id] })).json()
      .data;
    h.deps.clock.advance(1000);
    const second = (await createPost({ content: 'two', social_account_ids: [twitter.id] })).json()
      .data;
    const bobsConnection = await seedConnection(h.deps, h.bob.user.id, 'twitter');
    await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.bob),
      payload: { content: 'bob', social_account_ids: [bobsConnection.id] },
    });
    const response = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    expect(response.statusCode).toBe(200);
    const posts = response.json().data;
    expect(posts.map((post: { id: string }) => post.id)).toEqual([second.id, first.id]);
    expect(posts[0].post_targets).toHaveLength(1);
    expect(Object.keys(posts[0]).sort()).toEqual(POST_KEYS);
  });

  describe('opt-in pagination (limit, before)', () => {
    const list = (query = '') =>
      h.call({ method: 'GET', url: `/posts${query}`, headers: h.as(h.alice) });

    /** Five posts, oldest first, one second apart; the listing is newest first. */
    async function fivePosts(): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          (await createPost({ content: `p${i}`, social_account_ids: [twitter.id] })).json().data.id,
        );
        h.deps.clock.advance(1000);
      }
      return ids.reverse();
    }

    it('without limit: every post and no next_cursor key (unchanged)', async () => {
      const ids = await fivePosts();
      const body = (await list()).json();
      expect(Object.keys(body)).toEqual(['data']);
      expect(body.data.map((post: { id: string }) => post.id)).toEqual(ids);
    });

    it('limit=2 pages through 5 posts as 2, 2, 1, the last with next_cursor null', async () => {
      const ids = await fivePosts();
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=2${cursor === null ? '' : `&before=${encodeURIComponent(cursor)}`}`;
        const response = await list(query);
        expect(response.statusCode).toBe(200);
        const body = response.json();
        expect(Object.keys(body).sort()).toEqual(['data', 'next_cursor']);
        sizes.push(body.data.length);
        seen.push(...body.data.map((post: { id: string }) => post.id));
        expect(Object.keys(body.data[0]).sort()).toEqual(POST_KEYS);
        cursor = body.next_cursor;
      } while (cursor !== null && sizes.length < 10);
      expect(sizes).toEqual([2, 2, 1]);
      expect(seen).toEqual(ids);
      // A limit covering every post: one page, nothing after it.
      expect((await list('?limit=5')).json().next_cursor).toBeNull();
      expect((await list('?limit=4')).json().next_cursor).toEqual(expect.any(String));
    });

    it('works with workspace_id; an empty list is { data: [], next_cursor: null }', async () => {
      expect((await list('?limit=3')).json()).toEqual({ data: [], next_cursor: null });
      const bobs = await h.call({ method: 'GET', url: '/posts?limit=500', headers: h.as(h.bob) });
      expect(bobs.json()).toEqual({ data: [], next_cursor: null });
    });

    it('a malformed cursor: 400 validation_failed on before', async () => {
      await fivePosts();
      const valid = Buffer.from(`${new Date().toISOString()}|not-a-uuid`).toString('base64url');
      for (const before of ['garbage!', 'bm90IGEgY3Vyc29y', valid, '', 'a'.repeat(300)]) {
        const response = await list(`?limit=2&before=${encodeURIComponent(before)}`);
        expect(expectError(response, 400, 'validation_failed').details?.[0]?.field).toBe('before');
      }
      expect(
        expectError(await list('?before=abc'), 400, 'validation_failed').details?.[0]?.field,
      ).toBe('before');
    });

    it('limit 0, 501, negative or not a number: 400 validation_failed on limit', async () => {
      for (const limit of ['0', '501', '-1', 'many']) {
        const response = await list(`?limit=${limit}`);
        expect(expectError(response, 400, 'validation_failed').details?.[0]?.field).toBe('limit');
      }
    });

    it('a limit not written as a whole number (2.5, 1e1, 0x10, " 3") is refused, not rounded', async () => {
      for (const limit of ['2.5', '1e1', '0x10', '%203', '3.0']) {
        const response = await list(`?limit=${limit}`);
        expect(expectError(response, 400, 'validation_failed').details).toEqual([
          { field: 'limit', message: 'must be an integer' },
        ]);
      }
      // Still converted when written as one, also with a leading zero.
      await fivePosts();
      expect((await list('?limit=02')).json().data).toHaveLength(2);
    });
  });

  it('an empty list is { data: [] }', async () => {
    const response = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.bob) });
    expect(response.json()).toEqual({ data: [] });
  });

  it('gets one post with its targets', async () => {
    const created = (await createPost({ content: 'one', social_account_ids: [twitter.id] })).json()
      .data;
    const response = await h.call({
      method: 'GET',
      url: `/posts/${created.id}`,
      headers: h.as(h.alice),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual(created);
  });

  it("another account's post, an unknown id and a malformed id are all 404", async () => {
    const created = (await createPost({ content: 'one', social_account_ids: [twitter.id] })).json()
      .data;
    expectError(
      await h.call({ method: 'GET', url: `/posts/${created.id}`, headers: h.as(h.bob) }),
      404,
      'not_found',
    );
    expectError(
      await h.call({
        method: 'GET',
        url: '/posts/00000000-0000-7000-8000-00000000ffff',
        headers: h.as(h.alice),
      }),
      404,
      'not_found',
    );
    expectError(
      await h.call({ method: 'GET', url: '/posts/nope', headers: h.as(h.alice) }),
      404,
      'not_found',
    );
    expectError(
      await h.call({ method: 'GET', url: `/posts/${'x'.repeat(500)}`, headers: h.as(h.alice) }),
      404,
    );
  });

  it('workspace_id of a team the caller is not in: 403', async () => {
    const team = await seedWorkspace(h.deps, h.bob);
    expectError(
      await h.call({
        method: 'GET',
        url: `/posts?workspace_id=${team.account.id}`,
        headers: h.as(h.alice),
      }),
      403,
      'forbidden',
    );
  });

  it('workspace_id filters to that team', async () => {
    const team = await seedWorkspace(h.deps, h.alice);
    const teamConnection = await seedConnection(h.deps, team.account.id, 'twitter');
    await createPost({ content: 'personal', social_account_ids: [twitter.id] });
    const inTeam = await createPost({
      content: 'team',
      workspace_id: team.account.id,
      social_account_ids: [teamConnection.id],
    });
    expect(inTeam.statusCode).toBe(201);
    expect(inTeam.json().data.account_id).toBe(team.account.id);
    const listed = await h.call({
      method: 'GET',
      url: `/posts?workspace_id=${team.account.id}`,
      headers: h.as(h.alice),
    });
    expect(listed.json().data.map((post: { content: string }) => post.content)).toEqual(['team']);
    const all = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    expect(all.json().data).toHaveLength(2);
  });

  it('a team key acts in its team', async () => {
    const team = await seedWorkspace(h.deps, h.alice);
    const teamConnection = await seedConnection(h.deps, team.account.id, 'twitter');
    const response = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(team.rawTeamKey),
      payload: { content: 'from the team key', social_account_ids: [teamConnection.id] },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().data.account_id).toBe(team.account.id);
    // Personal connections are out of a team key's reach.
    expectInvalid(
      await h.call({
        method: 'POST',
        url: '/posts',
        headers: h.as(team.rawTeamKey),
        payload: { content: 'x', social_account_ids: [twitter.id] },
      }),
      'social_account_ids[0]',
    );
  });
});

describe('DELETE /posts/:id (cancel)', () => {
  it('cancels a queued post: 200 with the cancelled post; again: 200', async () => {
    const created = (await createPost({ content: 'one', social_account_ids: [twitter.id] })).json()
      .data;
    const response = await h.call({
      method: 'DELETE',
      url: `/posts/${created.id}`,
      headers: h.as(h.alice),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.status).toBe('cancelled');
    expect(response.json().data.post_targets[0].status).toBe('cancelled');
    expect(h.deps.queue.cancelled).toContain(created.id);
    const again = await h.call({
      method: 'DELETE',
      url: `/posts/${created.id}`,
      headers: h.as(h.alice),
    });
    expect(again.statusCode).toBe(200);
  });

  it('a post that is publishing: 409 conflict', async () => {
    const created = (await createPost({ content: 'one', social_account_ids: [twitter.id] })).json()
      .data;
    await h.deps.repos.posts.transitionStatus(
      created.id,
      ['queued'],
      'publishing',
      h.deps.clock.now(),
    );
    expectError(
      await h.call({ method: 'DELETE', url: `/posts/${created.id}`, headers: h.as(h.alice) }),
      409,
      'conflict',
    );
  });

  it("another account's post: 404", async () => {
    const created = (await createPost({ content: 'one', social_account_ids: [twitter.id] })).json()
      .data;
    expectError(
      await h.call({ method: 'DELETE', url: `/posts/${created.id}`, headers: h.as(h.bob) }),
      404,
    );
  });
});

describe('Idempotency-Key', () => {
  const body = () => ({ content: 'once', social_account_ids: [twitter.id] });

  it('the same key and body replays the first response; one post exists', async () => {
    const first = await createPost(body(), { 'idempotency-key': 'abc-1' });
    const second = await createPost(
      { social_account_ids: [twitter.id], content: 'once' },
      { 'idempotency-key': 'abc-1' },
    );
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers.location).toBe(first.headers.location);
    expect(second.json()).toEqual(first.json());
    const list = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    expect(list.json().data).toHaveLength(1);
  });

  it('the same key with another body: 409 idempotency_key_reused', async () => {
    await createPost(body(), { 'idempotency-key': 'abc-2' });
    expectError(
      await createPost({ ...body(), content: 'different' }, { 'idempotency-key': 'abc-2' }),
      409,
      'idempotency_key_reused',
    );
  });

  it('two concurrent first requests create one post', async () => {
    const [a, b] = await Promise.all([
      createPost(body(), { 'idempotency-key': 'race' }),
      createPost(body(), { 'idempotency-key': 'race' }),
    ]);
    expect(a?.statusCode).toBe(201);
    expect(b?.statusCode).toBe(201);
    expect(a?.json().data.id).toBe(b?.json().data.id);
    const list = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    expect(list.json().data).toHaveLength(1);
  });

  it('a failed request is not remembered: fixing the body with the same key works', async () => {
    expectInvalid(
      await createPost({ content: 'x' }, { 'idempotency-key': 'fix-me' }),
      'social_account_ids',
    );
    const fixed = await createPost(body(), { 'idempotency-key': 'fix-me' });
    expect(fixed.statusCode).toBe(201);
  });

  it('keys are scoped per caller and per route', async () => {
    const bobs = await seedConnection(h.deps, h.bob.user.id, 'twitter');
    const a = await createPost(body(), { 'idempotency-key': 'shared' });
    const b = await h.call({
      method: 'POST',
      url: '/posts',
      headers: { ...h.as(h.bob), 'idempotency-key': 'shared' },
      payload: { content: 'once', social_account_ids: [bobs.id] },
    });
    expect(b.statusCode).toBe(201);
    expect(b.json().data.id).not.toBe(a.json().data.id);
    const scheduled = await h.call({
      method: 'POST',
      url: '/posts/schedule',
      headers: { ...h.as(h.alice), 'idempotency-key': 'shared' },
      payload: { ...body(), scheduled_at: FUTURE },
    });
    expect(scheduled.statusCode).toBe(201);
    expect(scheduled.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays on /posts/schedule too, and records are kept 24 h', async () => {
    const payload = { ...body(), scheduled_at: FUTURE };
    const headers = { ...h.as(h.alice), 'idempotency-key': 'sched' };
    const first = await h.call({ method: 'POST', url: '/posts/schedule', headers, payload });
    h.deps.clock.advance(23 * 3_600_000);
    const second = await h.call({ method: 'POST', url: '/posts/schedule', headers, payload });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.id).toBe(first.json().data.id);
    h.deps.clock.advance(2 * 3_600_000);
    const [record] = [...h.deps.store.tables.idempotency.values()].filter(
      (r) => !r.scope.endsWith('#lock'),
    );
    expect(record && record.expiresAt.getTime() - record.createdAt.getTime()).toBe(24 * 3_600_000);
  });

  it('an empty or overlong key is a validation error', async () => {
    expectInvalid(
      await createPost(body(), { 'idempotency-key': 'k'.repeat(256) }),
      'idempotency-key',
    );
  });
});
