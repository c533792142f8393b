/**
 * Errors a newcomer meets when sending a body: each says what to send instead. A wrong
 * Content-Type on the CSV import names text/csv; every 413 names the limit that was passed;
 * an oversized CSV gets its 413 back over a real socket instead of a reset connection.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectError, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const send = (url: string, payload: string | Buffer, headers: Record<string, string>) =>
  h.call({ method: 'POST', url, headers: { ...h.as(h.alice), ...headers }, payload });

describe('Content-Type errors name the type the route takes', () => {
  it('a CSV sent as text/plain, octet-stream or without a Content-Type names text/csv', async () => {
    const file = 'content,platforms\nhello,twitter\n';
    for (const type of ['text/plain', 'application/octet-stream']) {
      const error = expectError(
        await send('/posts/import', file, { 'content-type': type }),
        415,
        'unsupported_media_type',
      );
      expect(error.message).toBe(
        'POST /posts/import takes the body with Content-Type: text/csv or application/csv',
      );
    }
    const untyped = await h.call({
      method: 'POST',
      url: '/posts/import',
      headers: h.as(h.alice),
      payload: Buffer.from(file),
    });
    expect(expectError(untyped, 415, 'unsupported_media_type').message).toMatch(/text\/csv/);
    // JSON, which the app itself parses, is refused by the route in the same words.
    const json = await send('/posts/import', '{"content":"x"}', {
      'content-type': 'application/json',
    });
    expect(expectError(json, 415, 'unsupported_media_type').message).toMatch(/text\/csv/);
  });

  it('a JSON route names application/json', async () => {
    const error = expectError(
      await send('/posts', 'content=x', { 'content-type': 'application/x-www-form-urlencoded' }),
      415,
      'unsupported_media_type',
    );
    expect(error.message).toBe('POST /posts takes the body with Content-Type: application/json');
  });
});

describe('every 413 names its limit', () => {
  it('a JSON body over 1 MiB', async () => {
    const body = JSON.stringify({ content: 'x'.repeat(1024 * 1024 + 10), platforms: ['twitter'] });
    const error = expectError(
      await send('/posts', body, { 'content-type': 'application/json' }),
      413,
      'payload_too_large',
    );
    expect(error.message).toBe('the request body is larger than the 1 MiB limit of POST /posts');
  });

  it('a CSV of more than 1,000 rows', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => `p${i},twitter`);
    const error = expectError(
      await send('/posts/import', ['content,platforms', ...rows].join('\n'), {
        'content-type': 'text/csv',
      }),
      413,
      'too_many_rows',
    );
    expect(error.message).toMatch(/at most 1000 rows/);
  });
});

describe('an oversized CSV over a real socket', () => {
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    app = h.app;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });

  it('gets its 413 naming the 8 MiB limit, not a reset connection', async () => {
    // 500 rows of 20 KB: under the row limit, over the size limit.
    const line = `${'x'.repeat(20_000)},twitter\n`;
    const file = `content,platforms\n${line.repeat(500)}`;
    const response = await fetch(`${base}/posts/import?dry_run=true`, {
      method: 'POST',
      headers: { ...h.as(h.alice), 'content-type': 'text/csv' },
      body: file,
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('payload_too_large');
    expect(body.error.message).toMatch(/larger than the 8 MiB limit of POST \/posts\/import/);
  });
});
