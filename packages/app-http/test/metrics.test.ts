/**
 * A post's numbers over HTTP: GET /posts/:id/metrics, its history, the refresh on demand and
 * GET /analytics/daily, over the in-memory deps. Sandbox connections publish without a platform
 * and get made-up numbers, so the expected numbers come from the same sandboxMetrics the worker
 * uses, at the time the fake clock says.
 */
import {
  METRIC_NAMES,
  type MetricValues,
  readDueMetrics,
  sandboxMetrics,
} from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  FUTURE,
  type Harness,
  seedConnection,
} from './support.ts';

const HOUR_MS = 3_600_000;
const TARGET_KEYS = [
  'error',
  'metrics',
  'next_refresh_at',
  'platform',
  'platform_post_id',
  'sandbox',
  'social_account_id',
  'state',
  'taken_at',
  'target_id',
];

type Metrics = Record<string, number | null>;
interface TargetJson {
  target_id: string;
  platform: string;
  social_account_id: string;
  platform_post_id: string;
  state: string;
  taken_at: string | null;
  next_refresh_at: string | null;
  metrics: Metrics;
  error: string | null;
  sandbox: boolean;
}
interface PostMetricsJson {
  post_id: string;
  totals: Metrics;
  targets: TargetJson[];
}
interface PublishedPost {
  id: string;
  post_targets: Array<{ id: string; published_at: string; platform: string }>;
}

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const allNull = () => Object.fromEntries(METRIC_NAMES.map((name) => [name, null]));

/** A sandbox connection of alice's (or of `user`), made through the API. */
async function sandboxConnection(platform: string, user = h.alice): Promise<string> {
  const response = await h.call({
    method: 'POST',
    url: '/social-accounts',
    headers: h.as(user),
    payload: { platform, sandbox: true },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.id;
}

/** A post published now to the connections, its publish job run. */
async function publish(connectionIds: string[], user = h.alice): Promise<PublishedPost> {
  const created = await h.call({
    method: 'POST',
    url: '/posts',
    headers: h.as(user),
    payload: { content: 'numbers', social_account_ids: connectionIds },
  });
  expect(created.statusCode, created.body).toBe(201);
  await h.deps.runJobs();
  const post = await h.call({
    method: 'GET',
    url: `/posts/${created.json().data.id}`,
    headers: h.as(user),
  });
  expect(post.json().data.status).toBe('published');
  return post.json().data;
}

/** The worker's pass, `ms` later. */
async function readAfter(ms: number): Promise<void> {
  h.deps.clock.advance(ms);
  await readDueMetrics(h.deps, new AbortController().signal);
}

const getMetrics = (postId: string, user = h.alice) =>
  h.call({ method: 'GET', url: `/posts/${postId}/metrics`, headers: h.as(user) });

const metricsOf = async (postId: string): Promise<PostMetricsJson> => {
  const response = await getMetrics(postId);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
};

/** What the sandbox gives a target of `post` now. */
const expectedNumbers = (post: PublishedPost, targetId: string): MetricValues => {
  const target = post.post_targets.find((candidate) => candidate.id === targetId);
  if (!target) throw new Error(`no target ${targetId}`);
  return sandboxMetrics(targetId, new Date(target.published_at), h.deps.clock.now()).metrics;
};

const sum = (list: MetricValues[]): Metrics =>
  Object.fromEntries(
    METRIC_NAMES.map((name) => [name, list.reduce((total, one) => total + (one[name] ?? 0), 0)]),
  );

describe('GET /posts/:id/metrics', () => {
  it('a target that just published is pending: all nine metrics null, the first read due at about 1 h', async () => {
    const connection = await sandboxConnection('twitter');
    const post = await publish([connection]);
    const body = await metricsOf(post.id);
    expect(body.post_id).toBe(post.id);
    expect(body.totals).toEqual(allNull());
    expect(body.targets).toHaveLength(1);
    const [target] = body.targets;
    expect(Object.keys(target ?? {}).sort()).toEqual(TARGET_KEYS);
    const published = post.post_targets[0];
    expect(target).toMatchObject({
      target_id: published?.id,
      platform: 'twitter',
      social_account_id: connection,
      platform_post_id: `sandbox-${published?.id}`,
      state: 'pending',
      taken_at: null,
      metrics: allNull(),
      error: null,
      sandbox: true,
    });
    const due =
      Date.parse(target?.next_refresh_at ?? '') - Date.parse(published?.published_at ?? '');
    expect(due).toBeGreaterThanOrEqual(0.9 * HOUR_MS);
    expect(due).toBeLessThanOrEqual(1.1 * HOUR_MS);
  });

  it('after the read pass: fresh sandbox numbers per target, their totals, the next read planned', async () => {
    const post = await publish([
      await sandboxConnection('twitter'),
      await sandboxConnection('bluesky'),
    ]);
    await readAfter(2 * HOUR_MS);
    const body = await metricsOf(post.id);
    const now = h.deps.clock.now();
    expect(body.targets).toHaveLength(2);
    const expected = body.targets.map((target) => expectedNumbers(post, target.target_id));
    body.targets.forEach((target, index) => {
      expect(target.state).toBe('fresh');
      expect(target.taken_at).toBe(now.toISOString());
      expect(target.metrics).toEqual(expected[index]);
      expect(Date.parse(target.next_refresh_at ?? '')).toBeGreaterThan(now.getTime());
    });
    expect(expected[0]?.views).toBeGreaterThan(0);
    expect(body.totals).toEqual(sum(expected));
  });

  it('a scheduled post has no targets to show, and totals all null', async () => {
    const connection = await seedConnection(h.deps, h.alice.user.id, 'twitter');
    const scheduled = await h.call({
      method: 'POST',
      url: '/posts/schedule',
      headers: h.as(h.alice),
      payload: { content: 'later', social_account_ids: [connection.id], scheduled_at: FUTURE },
    });
    const body = await metricsOf(scheduled.json().data.id);
    expect(body).toEqual({ post_id: scheduled.json().data.id, totals: allNull(), targets: [] });
  });

  it("another user's post, an unknown id and no credential: 404, 404, 401 in the envelope", async () => {
    const post = await publish([await sandboxConnection('twitter')]);
    for (const [method, url] of [
      ['GET', `/posts/${post.id}/metrics`],
      ['GET', `/posts/${post.id}/metrics/history`],
      ['POST', `/posts/${post.id}/metrics/refresh`],
    ] as const) {
      expectError(await h.call({ method, url, headers: h.as(h.bob) }), 404, 'not_found');
      expectError(await h.call({ method, url }), 401, 'unauthorized');
    }
    expectError(await getMetrics('0190f0e3-0000-7000-8000-000000000000'), 404, 'not_found');
    expectError(await getMetrics('not-an-id'), 404, 'not_found');
  });

  it("GET /metrics stays Prometheus's beside a post's metrics routes", async () => {
    await h.close();
    const token = 'prometheus-token-of-the-metrics-test';
    const exposition = {
      httpRequest() {},
      render: async () => 'sp_up 1\n',
      contentType: 'text/plain; version=0.0.4',
    };
    h = await createHarness({ metrics: exposition, metricsToken: token });
    const scraped = await h.call({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toBe('sp_up 1\n');
    // An API key is no Prometheus token: the operator endpoint does not answer a post's numbers.
    expectError(await h.call({ method: 'GET', url: '/metrics', headers: h.as(h.alice) }), 401);
    const post = await publish([await sandboxConnection('twitter')]);
    expect((await metricsOf(post.id)).targets).toHaveLength(1);
  });
});

describe('GET /posts/:id/metrics/history', () => {
  const history = (postId: string, query = '') =>
    h.call({
      method: 'GET',
      url: `/posts/${postId}/metrics/history${query}`,
      headers: h.as(h.alice),
    });

  it('lists the reads oldest first, of every target or of one', async () => {
    const post = await publish([
      await sandboxConnection('twitter'),
      await sandboxConnection('bluesky'),
    ]);
    const empty = await history(post.id);
    expect(empty.json()).toEqual({ data: [], next_cursor: null });
    await readAfter(2 * HOUR_MS);
    const firstRead = h.deps.clock.now().toISOString();
    await readAfter(6 * HOUR_MS);
    const all = await history(post.id);
    expect(all.statusCode, all.body).toBe(200);
    const { data, next_cursor } = all.json();
    expect(next_cursor).toBeNull();
    expect(data).toHaveLength(4);
    expect(data.map((snapshot: { taken_at: string }) => snapshot.taken_at)).toEqual([
      firstRead,
      firstRead,
      h.deps.clock.now().toISOString(),
      h.deps.clock.now().toISOString(),
    ]);
    expect(Object.keys(data[0]).sort()).toEqual([
      'metrics',
      'raw',
      'sandbox',
      'taken_at',
      'target_id',
    ]);
    expect(data[0]).toMatchObject({ sandbox: true, raw: { sandbox: true } });
    const target = post.post_targets[0]?.id ?? '';
    const one = (await history(post.id, `?target_id=${target}`)).json().data;
    expect(one).toHaveLength(2);
    expect(one.every((snapshot: { target_id: string }) => snapshot.target_id === target)).toBe(
      true,
    );
    expect(one[1].metrics).toEqual(expectedNumbers(post, target));
    expect(one[1].metrics.views).toBeGreaterThan(one[0].metrics.views);
  });

  it('pages with limit and before = next_cursor, and refuses a bad cursor, limit or target', async () => {
    const post = await publish([await sandboxConnection('twitter')]);
    for (const hours of [2, 6, 24]) await readAfter(hours * HOUR_MS);
    const first = (await history(post.id, '?limit=2')).json();
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (
      await history(post.id, `?limit=2&before=${encodeURIComponent(first.next_cursor)}`)
    ).json();
    expect(second.data).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    const takenAt = [...first.data, ...second.data].map((s: { taken_at: string }) => s.taken_at);
    expect(takenAt).toEqual([...takenAt].sort());
    expect(new Set(takenAt).size).toBe(3);

    expectInvalid(await history(post.id, '?before=not-a-cursor'), 'before');
    for (const limit of ['0', '501', '2.5', 'ten']) {
      expectInvalid(await history(post.id, `?limit=${limit}`), 'limit');
    }
    expectInvalid(await history(post.id, '?target_id=abc'), 'target_id');
    const elsewhere = '0190f0e3-0000-7000-8000-000000000000';
    expectError(await history(post.id, `?target_id=${elsewhere}`), 404, 'not_found');
  });
});

describe('POST /posts/:id/metrics/refresh', () => {
  const refresh = (postId: string) =>
    h.call({ method: 'POST', url: `/posts/${postId}/metrics/refresh`, headers: h.as(h.alice) });

  it('202 with the numbers as they are; a read within 60 s is not made due again', async () => {
    const post = await publish([await sandboxConnection('twitter')]);
    await readAfter(2 * HOUR_MS);
    const read = (await metricsOf(post.id)).targets[0];
    const planned = read?.next_refresh_at;
    expect(Date.parse(planned ?? '')).toBeGreaterThan(h.deps.clock.now().getTime());

    h.deps.clock.advance(30_000);
    const soon = await refresh(post.id);
    expect(soon.statusCode, soon.body).toBe(202);
    const answered: PostMetricsJson = soon.json().data;
    expect(answered.post_id).toBe(post.id);
    expect(answered.targets[0]).toEqual(read);
    expect(answered.totals).toEqual(read?.metrics);

    h.deps.clock.advance(31_000);
    const later = await refresh(post.id);
    expect(later.statusCode).toBe(202);
    expect(later.json().data.targets[0].next_refresh_at).toBe(h.deps.clock.now().toISOString());
    // What was made due is read by the next pass.
    await readDueMetrics(h.deps, new AbortController().signal);
    const reread = (await metricsOf(post.id)).targets[0];
    expect(reread?.taken_at).toBe(h.deps.clock.now().toISOString());
  });

  it('a post not read yet is made due now; asking twice changes nothing more', async () => {
    const post = await publish([await sandboxConnection('twitter')]);
    const first = await refresh(post.id);
    expect(first.statusCode).toBe(202);
    const now = h.deps.clock.now().toISOString();
    expect(first.json().data.targets[0]).toMatchObject({ state: 'pending', next_refresh_at: now });
    h.deps.clock.advance(1_000);
    const second = await refresh(post.id);
    expect(second.json().data.targets[0].next_refresh_at).toBe(now);
  });

  it('409 post_not_published for a scheduled post, naming why', async () => {
    const connection = await seedConnection(h.deps, h.alice.user.id, 'twitter');
    const scheduled = await h.call({
      method: 'POST',
      url: '/posts/schedule',
      headers: h.as(h.alice),
      payload: { content: 'later', social_account_ids: [connection.id], scheduled_at: FUTURE },
    });
    const error = expectError(await refresh(scheduled.json().data.id), 409, 'post_not_published');
    expect(error.message).toContain('scheduled');
  });
});

describe('GET /analytics/daily', () => {
  const daily = (query: string, user = h.alice) =>
    h.call({ method: 'GET', url: `/analytics/daily${query}`, headers: h.as(user) });

  it("sums each day's latest numbers, per account, connection or platform", async () => {
    const twitter = await sandboxConnection('twitter');
    const bluesky = await sandboxConnection('bluesky');
    const one = await publish([twitter, bluesky]);
    const two = await publish([twitter]);
    await readAfter(2 * HOUR_MS);
    const numbers = (post: PublishedPost, platform?: string) =>
      post.post_targets
        .filter((target) => !platform || target.platform === platform)
        .map((target) => expectedNumbers(post, target.id));
    const day = '2026-01-01';

    const all = await daily(`?from=${day}&to=${day}`);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toEqual({
      data: [{ date: day, posts: 2, metrics: sum([...numbers(one), ...numbers(two)]) }],
    });
    // Without a range: the 30 days up to today.
    expect((await daily('')).json()).toEqual(all.json());
    const ofBluesky = (await daily(`?platform=bluesky`)).json().data;
    expect(ofBluesky).toEqual([{ date: day, posts: 1, metrics: sum(numbers(one, 'bluesky')) }]);
    const ofConnection = (await daily(`?social_account_id=${twitter}`)).json().data;
    expect(ofConnection).toEqual([
      { date: day, posts: 2, metrics: sum([...numbers(one, 'twitter'), ...numbers(two)]) },
    ]);
    expect((await daily('?from=2026-01-02&to=2026-01-31')).json()).toEqual({ data: [] });
    // Bob's account has none of it.
    expect((await daily('', h.bob)).json()).toEqual({ data: [] });
  });

  it('refuses a reversed or too long range, a date that is none, an unknown platform: 400', async () => {
    expectInvalid(await daily('?from=2026-01-10&to=2026-01-01'), 'from');
    expectInvalid(await daily('?from=2025-01-01&to=2026-01-02'), 'to');
    expect((await daily('?from=2025-01-01&to=2026-01-01')).statusCode).toBe(200);
    for (const date of ['yesterday', '2026-02-31', '2026-1-5']) {
      expectInvalid(await daily(`?from=${date}`), 'from');
      expectInvalid(await daily(`?to=${date}`), 'to');
    }
    expectInvalid(await daily('?platform=myspace'), 'platform');
  });

  it("another user's connection or team: 404 and 403", async () => {
    const bobs = await sandboxConnection('twitter', h.bob);
    expectError(await daily(`?social_account_id=${bobs}`), 404, 'not_found');
    expectError(await daily('?social_account_id=nope'), 404, 'not_found');
    const team = await h.call({
      method: 'POST',
      url: '/workspaces',
      headers: h.as(h.bob),
      payload: { name: 'bobs' },
    });
    expectError(await daily(`?workspace_id=${team.json().data.id}`), 403, 'forbidden');
  });
});

describe('POST /webhooks', () => {
  it('subscribes to post.metrics_updated', async () => {
    const response = await h.call({
      method: 'POST',
      url: '/webhooks',
      headers: h.as(h.alice),
      payload: { url: 'https://hooks.example.com/numbers', events: ['post.metrics_updated'] },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data.events).toEqual(['post.metrics_updated']);
  });
});
