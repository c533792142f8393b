// POST /posts/validate, POST /posts/bulk and POST /posts/import (CSV) over the in-memory core.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MAX_PROBES_PER_REQUEST,
  type MediaProbe,
  type SocialAccount,
} from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createHarness,
  expectError,
  FUTURE,
  type Harness,
  PAST,
  seedConnection,
} from './support.ts';

let h: Harness;
let twitter: SocialAccount;
let tiktok: SocialAccount;
const probed: string[] = [];

/** Media "on the internet": .mp4 files answer as video, missing.* does not answer, page.jpg is HTML. */
const probe: MediaProbe = {
  async probe(url) {
    probed.push(url);
    if (url.includes('missing')) return { ok: false, reason: `media ${url} answered HTTP 404` };
    if (url.includes('page')) return { ok: true, contentType: 'text/html', bytes: 120 };
    return {
      ok: true,
      contentType: url.endsWith('.mp4') ? 'video/mp4' : 'image/jpeg',
      bytes: 1024,
    };
  },
};

beforeEach(async () => {
  h = await createHarness();
  h.deps.mediaProbe = probe;
  probed.length = 0;
  twitter = await seedConnection(h.deps, h.alice.user.id, 'twitter');
  tiktok = await seedConnection(h.deps, h.alice.user.id, 'tiktok');
});
afterEach(() => h.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  h.call({
    method: 'POST',
    url,
    headers: { ...h.as(h.alice), ...headers },
    payload: payload as object,
  });

const csv = (url: string, text: string, headers: Record<string, string> = {}) =>
  h.call({
    method: 'POST',
    url,
    headers: { ...h.as(h.alice), 'content-type': 'text/csv', ...headers },
    payload: text,
  });

const postsStored = () => h.deps.store.tables.posts.size;

describe('POST /posts/validate', () => {
  it('a good post is valid, its media probed, and nothing is created', async () => {
    const response = await post('/posts/validate', {
      content: 'hello',
      social_account_ids: [tiktok.id],
      media_urls: ['https://cdn.example.com/a.mp4'],
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ data: { valid: true, problems: [] } });
    expect(probed).toEqual(['https://cdn.example.com/a.mp4']);
    expect(postsStored()).toBe(0);
    expect(h.deps.queue.enqueued).toEqual([]);
  });

  it('reports every problem: rules, connections, unreachable and mislabelled media', async () => {
    const response = await post('/posts/validate', {
      content: 'x'.repeat(300),
      social_account_ids: [twitter.id, '0190a5d2-7a3b-7c4d-8e5f-0123456789ab'],
      media_urls: ['https://cdn.example.com/missing.mp4', 'https://cdn.example.com/page.jpg'],
      scheduled_at: PAST,
    });
    expect(response.statusCode).toBe(200);
    const { data } = response.json() as {
      data: { valid: boolean; problems: Array<{ field: string }> };
    };
    expect(data.valid).toBe(false);
    const fields = data.problems.map((problem) => problem.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'scheduled_at',
        'social_account_ids[1]',
        'media_urls[0]',
        'media_urls[1]',
      ]),
    );
    expect(JSON.stringify(data.problems)).toContain(
      'cannot be fetched: media https://cdn.example.com/missing.mp4 answered HTTP 404',
    );
    expect(JSON.stringify(data.problems)).toContain(
      'named like an image but the server says text/html',
    );
    expect(postsStored()).toBe(0);
  });

  it('a body that is not a post at all is a 400 with the error envelope', async () => {
    expectError(await post('/posts/validate', [{ content: 'x' }]), 400, 'validation_failed');
    expectError(
      await post('/posts/validate', '"just text"', { 'content-type': 'application/json' }),
      400,
      'validation_failed',
    );
  });

  it('lists every problem at once, schema and rules alike, in a 200', async () => {
    const response = await post('/posts/validate', {
      content: 'x'.repeat(5001),
      social_account_ids: ['0190a5d2-7a3b-7c4d-8e5f-0123456789ab'],
      media_urls: 'not a list',
      colour: 'red',
      scheduled_at: PAST,
    });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json() as {
      data: { valid: boolean; problems: Array<{ field: string; message: string }> };
    };
    expect(data.valid).toBe(false);
    expect(data.problems.map((problem) => problem.field).sort()).toEqual([
      'colour',
      'content',
      'media_urls',
      'scheduled_at',
      'social_account_ids[0]',
    ]);
    expect(data.problems).toContainEqual({
      field: 'content',
      message: 'must be at most 5000 characters',
    });
  });
});

describe('POST /posts/bulk', () => {
  const good = (n: number) => ({ content: `post ${n}`, social_account_ids: [twitter.id] });

  it('creates each post on its own: refused ones are reported, the others created and enqueued', async () => {
    const response = await post('/posts/bulk', {
      posts: [
        good(1),
        { ...good(2), scheduled_at: FUTURE },
        { content: 'no target' },
        { ...good(4), scheduled_at: PAST },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json() as {
      data: { created: number; failed: number; results: Array<Record<string, unknown>> };
    };
    expect(data).toMatchObject({ dry_run: false, created: 2, failed: 2 });
    expect(data.results.map((result) => [result.index, result.status])).toEqual([
      [0, 201],
      [1, 201],
      [2, 400],
      [3, 400],
    ]);
    expect(data.results[1]).toMatchObject({
      data: { status: 'scheduled', scheduled_at: new Date(FUTURE).toISOString() },
    });
    expect(data.results[2]).toMatchObject({
      error: { code: 'validation_failed', details: expect.any(Array) },
    });
    expect(postsStored()).toBe(2);
    expect(h.deps.queue.enqueued.map((call) => call.kind)).toEqual(['publish', 'publish']);
  });

  it('dry_run=true validates each post and creates nothing', async () => {
    const response = await post('/posts/bulk?dry_run=true', {
      posts: [good(1), { content: 'no target' }],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      dry_run: true,
      created: 0,
      failed: 1,
      results: [
        { index: 0, valid: true, problems: [] },
        { index: 1, valid: false },
      ],
    });
    expect(postsStored()).toBe(0);
  });

  it('one Idempotency-Key covers the whole request: a retry replays, nothing is created twice', async () => {
    const body = { posts: [good(1), good(2)] };
    const first = await post('/posts/bulk', body, { 'idempotency-key': 'bulk-1' });
    const again = await post('/posts/bulk', body, { 'idempotency-key': 'bulk-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(postsStored()).toBe(2);
    expectError(
      await post('/posts/bulk', { posts: [good(3)] }, { 'idempotency-key': 'bulk-1' }),
      409,
      'idempotency_key_reused',
    );
  });

  it('a body that is not a batch: more than 100 posts, none, no list, an unknown field: 400', async () => {
    expectError(
      await post('/posts/bulk', { posts: Array.from({ length: 101 }, (_, i) => good(i)) }),
      400,
    );
    expectError(await post('/posts/bulk', { posts: [] }), 400);
    expectError(await post('/posts/bulk', { posts: good(1) }), 400);
    const error = expectError(await post('/posts/bulk', { posts: [good(1)], colour: 'red' }), 400);
    expect(JSON.stringify(error)).toContain('colour');
    expect(postsStored()).toBe(0);
  });

  it('a post that breaks the schema is refused in its own result, every problem listed', async () => {
    const response = await post('/posts/bulk', {
      posts: [
        good(1),
        { ...good(2), content: 'x'.repeat(5001), colour: 'red', scheduled_at: PAST },
        good(3),
        'not a post',
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json() as {
      data: {
        created: number;
        results: Array<{
          status: number;
          error?: { code: string; details: Array<{ field: string; message: string }> };
        }>;
      };
    };
    expect(data.results.map((result) => result.status)).toEqual([201, 400, 201, 400]);
    expect(data.created).toBe(2);
    expect(data.results[1]?.error?.code).toBe('validation_failed');
    expect(data.results[1]?.error?.details.map((problem) => problem.field).sort()).toEqual([
      'colour',
      'content',
      'scheduled_at',
    ]);
    expect(data.results[3]?.error?.details).toEqual([
      { field: 'post', message: 'must be an object' },
    ]);
    expect(postsStored()).toBe(2);
  });

  it('dry_run=true lists the schema and rule problems of each post in its result', async () => {
    const response = await post('/posts/bulk?dry_run=true', {
      posts: [good(1), { ...good(2), content: 'x'.repeat(5001), colour: 'red' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    const { results } = response.json().data as {
      results: Array<{ index: number; valid: boolean; problems: Array<{ field: string }> }>;
    };
    expect(results[0]).toEqual({ index: 0, valid: true, problems: [] });
    expect(results[1]?.valid).toBe(false);
    expect(results[1]?.problems.map((problem) => problem.field).sort()).toEqual([
      'colour',
      'content',
    ]);
  });
});

describe('POST /posts/import (CSV)', () => {
  const header = 'scheduled_at,content,social_account_ids,media_urls,platform_options';

  it('creates the good rows and reports the bad ones by row and line, per field', async () => {
    const file = [
      header,
      `${FUTURE},"Hello, world",${twitter.id},,`,
      `,now please,${tiktok.id},https://cdn.example.com/a.mp4,"{""tiktok"":{""tiktokPrivacy"":""SELF_ONLY""}}"`,
      `${PAST},too late,${twitter.id},,`,
      `,bad json,${twitter.id},,{oops`,
      '',
      `,"two
lines",${twitter.id},,`,
    ].join('\n');
    const response = await csv('/posts/import', file);
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json() as {
      data: { created: number; failed: number; results: Array<Record<string, unknown>> };
    };
    expect(data).toMatchObject({ dry_run: false, created: 3, failed: 2 });
    expect(data.results.map((r) => [r.row, r.line, r.status])).toEqual([
      [1, 2, 201],
      [2, 3, 201],
      [3, 4, 400],
      [4, 5, 400],
      [5, 8, 201],
    ]);
    expect(data.results[2]).toMatchObject({
      error: { details: [expect.objectContaining({ field: 'scheduled_at' })] },
    });
    expect(data.results[3]).toMatchObject({
      error: { details: [expect.objectContaining({ field: 'platform_options' })] },
    });
    expect(data.results[0]).toMatchObject({
      data: { content: 'Hello, world', status: 'scheduled' },
    });
    expect(postsStored()).toBe(3);
  });

  it('dry_run=true: exactly the bad rows have problems, nothing is created', async () => {
    const rows = Array.from({ length: 50 }, (_, i) =>
      i % 10 === 3 ? `${PAST},row ${i},${twitter.id}` : `${FUTURE},row ${i},${twitter.id}`,
    );
    const response = await csv(
      '/posts/import?dry_run=true',
      ['scheduled_at,content,social_account_ids', ...rows].join('\n'),
    );
    expect(response.statusCode).toBe(200);
    const { data } = response.json() as {
      data: { failed: number; results: Array<{ row: number; valid: boolean }> };
    };
    expect(data.failed).toBe(5);
    expect(data.results.filter((r) => !r.valid).map((r) => r.row)).toEqual([4, 14, 24, 34, 44]);
    expect(postsStored()).toBe(0);
  });

  it('platforms instead of ids, lists separated by | or spaces', async () => {
    const response = await csv(
      '/posts/import',
      `content,platforms,media_urls\nboth,twitter|tiktok,https://cdn.example.com/a.mp4 https://cdn.example.com/b.mp4`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json().data.results[0];
    expect(result.status, JSON.stringify(result)).toBe(201);
    expect(result.data.media_urls).toHaveLength(2);
    expect(result.data.post_targets.map((t: { platform: string }) => t.platform).sort()).toEqual([
      'tiktok',
      'twitter',
    ]);
  });

  it('refuses a file it cannot read, with nothing created', async () => {
    expectError(await csv('/posts/import', 'content,colour\nhi,red'), 400, 'invalid_csv');
    expectError(await csv('/posts/import', 'content\nhi'), 400, 'invalid_csv');
    expectError(
      await csv('/posts/import', `content,platforms\n"unterminated,twitter`),
      400,
      'invalid_csv',
    );
    expectError(await csv('/posts/import', 'content,platforms\n'), 400, 'invalid_csv');
    const tooMany = [
      'content,platforms',
      ...Array.from({ length: 1001 }, (_, i) => `p${i},twitter`),
    ].join('\n');
    expectError(await csv('/posts/import', tooMany), 413, 'too_many_rows');
    expect(postsStored()).toBe(0);
  });

  it('needs a credential and text/csv', async () => {
    expectError(
      await h.call({
        method: 'POST',
        url: '/posts/import',
        headers: { 'content-type': 'text/csv' },
        payload: 'content\nx',
      }),
      401,
    );
    expectError(await post('/posts/import', { content: 'json' }), 415);
  });
});

describe('the README', () => {
  it('shows the shape a bulk dry run answers', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('- `?dry_run=true` (bulk and import)'));
    const [request, answer] = [...section.matchAll(/`(\{"[^`]+\})`/g)].map((m) => m[1] ?? '');
    const response = await post('/posts/bulk?dry_run=true', JSON.parse(request ?? ''));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(JSON.parse(answer ?? ''));
  });
});

describe('the example file of the README', () => {
  it('reads as three posts with no cell problems', async () => {
    const { createReadStream } = await import('node:fs');
    const { readCsvRows } = await import('../src/import/csv-rows.ts');
    const file = new URL('../../../docs/examples/posts.csv', import.meta.url);
    const rows = await readCsvRows(createReadStream(file), { maxRows: 10, maxBytes: 1_000_000 });
    expect(rows.map((row) => row.problems)).toEqual([[], [], []]);
    expect(rows[1]?.item).toMatchObject({
      platforms: ['tiktok', 'instagram'],
      platform_options: { tiktok: { tiktokPrivacy: 'PUBLIC_TO_EVERYONE' } },
    });
  });
});

describe('JSON nested deeper than the database parses', () => {
  it('is the problem of its post, with an Idempotency-Key too (never a 500)', async () => {
    const depth = 200_000;
    const note = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const item = (content: string, options: string) =>
      `{"content":"${content}","social_account_ids":["${twitter.id}"],"platform_options":{"twitter":{"note":${options}}}}`;
    const response = await h.call({
      method: 'POST',
      url: '/posts/bulk',
      headers: { ...h.as(h.alice), 'content-type': 'application/json', 'idempotency-key': 'deep' },
      payload: `{"posts":[${item('fine', '"x"')},${item('deep', note)}]}`,
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    const results = response.json().data.results as Array<{
      status: number;
      error?: { details: Array<{ field: string; message: string }> };
    }>;
    expect(results.map((result) => result.status)).toEqual([201, 400]);
    expect(results[1]?.error?.details[0]?.message).toBe(
      'must not be nested more than 32 levels deep',
    );
  });
});

describe('a post that fails unexpectedly', () => {
  /** The store refuses the post whose content is `explode`, as a database error would. */
  const explodeOn = () => {
    const posts = h.deps.repos.posts;
    const insert = posts.insert.bind(posts);
    posts.insert = async (post) => {
      if (post.content === 'explode') throw new Error('connection reset while inserting');
      return insert(post);
    };
  };
  const good = { content: 'fine', social_account_ids: [] as string[] };

  it('bulk: the others are created and recorded with the key; a retry creates nothing twice', async () => {
    explodeOn();
    const body = {
      posts: [
        { ...good, social_account_ids: [twitter.id] },
        { content: 'explode', social_account_ids: [twitter.id] },
      ],
    };
    const first = await post('/posts/bulk', body, { 'idempotency-key': 'half' });
    expect(first.statusCode, first.body).toBe(200);
    const { data } = first.json() as {
      data: { created: number; results: Array<{ status: number; error?: { code: string } }> };
    };
    expect(data.results.map((result) => result.status)).toEqual([201, 500]);
    expect(data.results[1]?.error?.code).toBe('internal_error');
    expect(JSON.stringify(data)).not.toContain('connection reset');
    const again = await post('/posts/bulk', body, { 'idempotency-key': 'half' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(postsStored()).toBe(1);
  });

  it('CSV import: the same', async () => {
    explodeOn();
    const file = `content,social_account_ids\nfine,${twitter.id}\nexplode,${twitter.id}\n`;
    const first = await csv('/posts/import', file, { 'idempotency-key': 'half-csv' });
    expect(first.statusCode, first.body).toBe(200);
    const statuses = (first.json().data.results as Array<{ status: number }>).map((r) => r.status);
    expect(statuses).toEqual([201, 500]);
    const again = await csv('/posts/import', file, { 'idempotency-key': 'half-csv' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(postsStored()).toBe(1);
  });
});

describe('media probes of one request', () => {
  const media = (post: number, count: number) =>
    Array.from({ length: count }, (_, i) => `https://cdn.example.com/p${post}-${i}.jpg`);

  it('no more URLs than a post may hold are probed', async () => {
    const response = await post('/posts/validate', {
      content: 'many',
      social_account_ids: [twitter.id],
      media_urls: media(0, 25),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(probed).toHaveLength(20);
    expect(response.json().data.problems).toContainEqual({
      field: 'media_urls',
      message: 'must hold at most 20 items',
    });
  });

  it(`a bulk dry run probes each URL once and at most ${MAX_PROBES_PER_REQUEST} in all; the rest are reported unchecked`, async () => {
    const shared = 'https://cdn.example.com/logo.jpg';
    const posts = Array.from({ length: 10 }, (_, n) => ({
      content: `post ${n}`,
      social_account_ids: [twitter.id],
      media_urls: [shared, ...media(n, 15)],
    }));
    const response = await post('/posts/bulk?dry_run=true', { posts });
    expect(response.statusCode, response.body).toBe(200);
    expect(probed).toHaveLength(MAX_PROBES_PER_REQUEST);
    expect(new Set(probed).size).toBe(MAX_PROBES_PER_REQUEST);
    const results = response.json().data.results as Array<{
      valid: boolean;
      unchecked?: Array<{ field: string; message: string }>;
    }>;
    const unchecked = results.flatMap((result) => result.unchecked ?? []);
    // 1 shared + 150 distinct URLs named; 100 asked.
    expect(unchecked).toHaveLength(151 - MAX_PROBES_PER_REQUEST);
    expect(unchecked[0]?.message).toContain(`limit of ${MAX_PROBES_PER_REQUEST}`);
    expect(results.every((result) => result.valid)).toBe(true);
  });

  it('stop when the client disconnects', async () => {
    const started: AbortSignal[] = [];
    h.deps.mediaProbe = {
      probe: (_url, signal) =>
        new Promise((resolve) => {
          if (signal) started.push(signal);
          else started.push(AbortSignal.timeout(60_000));
          const answer = () => resolve({ ok: false, reason: 'aborted' });
          signal?.addEventListener('abort', answer, { once: true });
        }),
    };
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.address() as AddressInfo;
    const body = JSON.stringify({
      posts: Array.from({ length: 40 }, (_, n) => ({
        content: `post ${n}`,
        social_account_ids: [twitter.id],
        media_urls: media(n, 5),
      })),
    });
    const request = httpRequest({
      host: '127.0.0.1',
      port: address.port,
      method: 'POST',
      path: '/posts/bulk?dry_run=true',
      headers: { ...h.as(h.alice), 'content-type': 'application/json' },
    });
    request.on('error', () => {});
    request.end(body);
    await vi.waitFor(() => expect(started.length).toBeGreaterThan(0), { timeout: 5_000 });
    const inFlight = started.length;
    request.destroy();
    await vi.waitFor(() => expect(started.every((signal) => signal.aborted)).toBe(true), {
      timeout: 5_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The probes in flight were aborted, and no other started: 200 URLs were named.
    expect(started.length).toBe(inFlight);
    expect(inFlight).toBeLessThanOrEqual(8);
  });
});
