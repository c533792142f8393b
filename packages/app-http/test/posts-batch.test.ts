// POST /posts/validate, POST /posts/bulk and POST /posts/import (CSV) over the in-memory core.
import type { MediaProbe, SocialAccount } from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

  it('a body of the wrong shape is a 400 with the error envelope', async () => {
    expectError(await post('/posts/validate', { content: 5 }), 400, 'validation_failed');
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

  it('more than 100 posts, none, or an unknown field: 400 naming it', async () => {
    expectError(
      await post('/posts/bulk', { posts: Array.from({ length: 101 }, (_, i) => good(i)) }),
      400,
    );
    expectError(await post('/posts/bulk', { posts: [] }), 400);
    const error = expectError(
      await post('/posts/bulk', { posts: [{ ...good(1), colour: 'red' }] }),
      400,
    );
    expect(JSON.stringify(error)).toContain('colour');
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
