/**
 * Hosted media over the HTTP layer (in-memory fakes): POST /media raw and multipart, the
 * public URL (HEAD, Range, 404 once deleted), GET/list/DELETE per account, 409 while a post
 * uses it, posts refusing a deleted one, and the 413 that reaches a client still sending.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SocialAccount } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  FUTURE,
  type Harness,
  seedConnection,
} from './support.ts';

interface MediaJson {
  id: string;
  url: string;
  content_type: string;
  size: number;
  sha256: string;
  filename: string | null;
  created_at: string;
  expires_at: string | null;
}

const BASE = 'http://127.0.0.1:3000';
// Each starts with its type's magic bytes (POST /media checks them).
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(996, 7),
]);
const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(1000, 7)]);
/** `size` bytes starting with an MP4's `ftyp` box. */
const mp4 = (size = 1004, fill = 7) => {
  const bytes = Buffer.alloc(size, fill);
  Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]).copy(bytes);
  return bytes;
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const pathOf = (url: string) => url.slice(BASE.length);

let h: Harness;
let x: SocialAccount;
beforeAll(async () => {
  h = await createHarness({});
  x = await seedConnection(h.deps, h.alice.user.id, 'twitter');
});
afterAll(() => h.close());

async function upload(
  bytes: Buffer,
  type = 'image/png',
  query = '',
  user = h.alice,
): Promise<MediaJson> {
  const response = await h.call({
    method: 'POST',
    url: `/media${query}`,
    headers: { ...h.as(user), 'content-type': type },
    payload: bytes,
  });
  expect(response.statusCode, response.body).toBe(201);
  const { data } = response.json() as { data: MediaJson };
  expect(response.headers.location).toBe(`/media/${data.id}`);
  return data;
}

describe('POST /media', () => {
  it('stores the raw body: public url, size, sha256, expiry', async () => {
    const media = await upload(png, 'image/png', '?filename=cat.png');
    expect(media).toMatchObject({
      content_type: 'image/png',
      size: png.length,
      sha256: sha(png),
      filename: 'cat.png',
    });
    expect(media.url).toMatch(new RegExp(`^${BASE}/m/[0-9a-f]{32}\\.png$`));
    expect(Date.parse(media.expires_at ?? '') - Date.parse(media.created_at)).toBe(30 * 86_400_000);
    const got = await h.call({ method: 'GET', url: `/media/${media.id}`, headers: h.as(h.alice) });
    expect(got.json()).toEqual({ data: media });
    // Another user does not see it.
    expectError(
      await h.call({ method: 'GET', url: `/media/${media.id}`, headers: h.as(h.bob) }),
      404,
      'not_found',
    );
  });

  it('takes multipart/form-data with a part named file', async () => {
    const boundary = 'xYzBoundary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
      ),
      mp4(),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const media = await upload(body, `multipart/form-data; boundary=${boundary}`);
    expect(media).toMatchObject({
      content_type: 'video/mp4',
      size: mp4().length,
      sha256: sha(mp4()),
      filename: 'clip.mp4',
    });
    expect(media.url).toMatch(/\.mp4$/);
    const missing = await h.call({
      method: 'POST',
      url: '/media',
      headers: { ...h.as(h.alice), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--${boundary}--\r\n`,
    });
    expectInvalid(missing, 'file');
  });

  it('skips file parts of other names, before or after the one named file', async () => {
    const boundary = 'oTherFiles';
    const filePart = (name: string, bytes: Buffer, type: string) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\nContent-Type: ${type}\r\n\r\n`,
        ),
        bytes,
        Buffer.from('\r\n'),
      ]);
    const body = Buffer.concat([
      filePart('attachment', Buffer.from('not the upload'), 'text/plain'),
      filePart('file', png, 'image/png'),
      filePart('thumbnail', jpeg, 'image/jpeg'),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const media = await upload(body, `multipart/form-data; boundary=${boundary}`);
    expect(media).toMatchObject({ content_type: 'image/png', size: png.length, sha256: sha(png) });
  });

  it('refuses other types (415), empty bodies and bad file names (400)', async () => {
    const json = await h.call({
      method: 'POST',
      url: '/media',
      headers: h.as(h.alice),
      payload: { hello: 1 },
    });
    expectError(json, 415, 'unsupported_media_type');
    const gif = await h.call({
      method: 'POST',
      url: '/media',
      headers: { ...h.as(h.alice), 'content-type': 'image/gif' },
      payload: png,
    });
    expectError(gif, 415);
    const empty = await h.call({
      method: 'POST',
      url: '/media',
      headers: { ...h.as(h.alice), 'content-type': 'image/png', 'content-length': '0' },
    });
    expect([400, 415]).toContain(empty.statusCode);
    const badName = await h.call({
      method: 'POST',
      url: '/media?filename=a%2Fb',
      headers: { ...h.as(h.alice), 'content-type': 'image/png' },
      payload: png,
    });
    expectInvalid(badName, 'filename');
    expectError(
      await h.call({
        method: 'POST',
        url: '/media',
        headers: { 'content-type': 'image/png' },
        payload: png,
      }),
      401,
    );
  });

  it('answers 413 media_too_large when Content-Length is over the limit, unread', async () => {
    const small = await createHarness({});
    small.deps.media.maxBytes = 100;
    try {
      const response = await small.call({
        method: 'POST',
        url: '/media',
        headers: { ...small.as(small.alice), 'content-type': 'video/mp4' },
        payload: png,
      });
      expectError(response, 413, 'media_too_large');
      expect(response.headers.connection).toBe('close');
      // Refused before the body is read (here: no credential): the connection is closed too.
      const anonymous = await small.call({
        method: 'POST',
        url: '/media',
        headers: { 'content-type': 'video/mp4' },
        payload: png,
      });
      expectError(anonymous, 401);
      expect(anonymous.headers.connection).toBe('close');
      expect(small.deps.media.store.objects.size).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('a chunked upload past the limit gets its 413 while still sending; nothing is kept', async () => {
    const small = await createHarness({});
    small.deps.media.maxBytes = 1024 * 1024;
    await small.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = small.app.server.address() as AddressInfo;
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/media',
            headers: { ...small.as(small.alice), 'content-type': 'video/mp4' },
          },
          (res) => {
            let body = '';
            res.on('data', (chunk) => {
              body += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        // 64 MiB offered, 64 KiB at a time, as long as the server reads.
        let sent = 0;
        const chunk = mp4(65_536, 1);
        const pump = () => {
          while (sent < 64 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          req.end();
        };
        pump();
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('media_too_large');
      expect(small.deps.media.store.objects.size).toBe(0);
    } finally {
      await small.close();
    }
  }, 30_000);
});

describe('a client that goes away mid-upload', () => {
  it.each([
    ['raw', 'video/mp4', Buffer.alloc(0)],
    [
      'multipart',
      'multipart/form-data; boundary=b0undary',
      Buffer.from(
        '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n',
      ),
    ],
  ])('%s: the store write stops and nothing is kept', async (_kind, type, head) => {
    const small = await createHarness({});
    const outcomes: string[] = [];
    const store = small.deps.media.store;
    const put = store.put.bind(store);
    store.put = (key, body, contentType) =>
      put(key, body, contentType).then(
        () => void outcomes.push('stored'),
        (error: Error) => {
          outcomes.push(`failed: ${error.message}`);
          throw error;
        },
      );
    await small.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = small.app.server.address() as AddressInfo;
      const req = httpRequest({
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/media',
        headers: {
          ...small.as(small.alice),
          'content-type': type,
          'content-length': String(10 * 1024 * 1024),
        },
      });
      req.on('error', () => {});
      req.write(head);
      req.write(mp4(256 * 1024, 2));
      await new Promise((resolve) => setTimeout(resolve, 200));
      req.destroy();
      await expect
        .poll(() => outcomes, { timeout: 5_000 })
        .toEqual([expect.stringMatching(/^failed: the upload ended before its last byte/)]);
      expect(store.objects.size).toBe(0);
    } finally {
      await small.close();
    }
  });
});

describe('the public url', () => {
  it('serves the bytes without a credential, HEAD, ranges, 416, 404 for unknown names', async () => {
    const media = await upload(png);
    const path = pathOf(media.url);
    const whole = await h.call({ method: 'GET', url: path });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(png)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(png.length),
      'accept-ranges': 'bytes',
    });
    const head = await h.call({ method: 'HEAD', url: path });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(png.length));
    expect(head.rawPayload.length).toBe(0);
    const range = await h.call({ method: 'GET', url: path, headers: { range: 'bytes=1-3' } });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 1-3/${png.length}`);
    expect(range.rawPayload.equals(png.subarray(1, 4))).toBe(true);
    const suffix = await h.call({ method: 'GET', url: path, headers: { range: 'bytes=-2' } });
    expect(suffix.rawPayload.equals(png.subarray(-2))).toBe(true);
    const open = await h.call({ method: 'GET', url: path, headers: { range: 'bytes=1000-' } });
    expect(open.rawPayload.equals(png.subarray(1000))).toBe(true);
    const outside = await h.call({ method: 'GET', url: path, headers: { range: 'bytes=5000-' } });
    expectError(outside, 416, 'range_not_satisfiable');
    expect(outside.headers['content-range']).toBe(`bytes */${png.length}`);
    expectError(
      await h.call({ method: 'GET', url: '/m/0123456789abcdef0123456789abcdef.png' }),
      404,
    );
    expectError(await h.call({ method: 'GET', url: '/m/..%2F..%2Fetc' }), 404);
  });
});

describe('media in posts, delete and list', () => {
  it('a post uses its own media; delete is 409 while it is unfinished, 404 after', async () => {
    const media = await upload(png);
    const post = await h.call({
      method: 'POST',
      url: '/posts/schedule',
      headers: h.as(h.alice),
      payload: {
        content: 'with our media',
        media_urls: [media.url],
        social_account_ids: [x.id],
        scheduled_at: FUTURE,
      },
    });
    expect(post.statusCode, post.body).toBe(201);
    const inUse = await h.call({
      method: 'GET',
      url: `/media/${media.id}`,
      headers: h.as(h.alice),
    });
    expect(inUse.json().data.expires_at).toBeNull();
    expectError(
      await h.call({ method: 'DELETE', url: `/media/${media.id}`, headers: h.as(h.alice) }),
      409,
      'conflict',
    );
    const cancelled = await h.call({
      method: 'DELETE',
      url: `/posts/${post.json().data.id}`,
      headers: h.as(h.alice),
    });
    expect(cancelled.statusCode).toBe(200);
    const deleted = await h.call({
      method: 'DELETE',
      url: `/media/${media.id}`,
      headers: h.as(h.alice),
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expectError(await h.call({ method: 'GET', url: pathOf(media.url) }), 404);
    expectError(
      await h.call({ method: 'GET', url: `/media/${media.id}`, headers: h.as(h.alice) }),
      404,
    );
    // A post naming the deleted media is refused, naming the field and the reason.
    const refused = await h.call({
      method: 'POST',
      url: '/posts/validate',
      headers: h.as(h.alice),
      payload: { content: 'gone', media_urls: [media.url], social_account_ids: [x.id] },
    });
    expect(refused.statusCode).toBe(200);
    expect(JSON.stringify(refused.json())).toContain('media_not_found');
    const created = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: { content: 'gone', media_urls: [media.url], social_account_ids: [x.id] },
    });
    expectInvalid(created, 'media_urls[0]');
    expect(created.json().error.details[0].message).toMatch(/^media_not_found/);
  });

  it("another account's media is not found in a post", async () => {
    const bobs = await upload(png, 'image/png', '', h.bob);
    const created = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: { content: 'not mine', media_urls: [bobs.url], social_account_ids: [x.id] },
    });
    expectInvalid(created, 'media_urls[0]');
  });

  it('lists the account media newest first, paged', async () => {
    const user = h.bob;
    const first = await upload(png, 'image/png', '', user);
    const second = await upload(jpeg, 'image/jpeg', '', user);
    const page = await h.call({ method: 'GET', url: '/media?limit=1', headers: h.as(user) });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().data.map((m: MediaJson) => m.id)).toEqual([second.id]);
    const cursor = page.json().next_cursor as string;
    const next = await h.call({
      method: 'GET',
      url: `/media?limit=1&before=${cursor}`,
      headers: h.as(user),
    });
    expect(next.json().data.map((m: MediaJson) => m.id)).toEqual([first.id]);
    expectInvalid(
      await h.call({ method: 'GET', url: '/media?limit=1&before=nope', headers: h.as(user) }),
      'before',
    );
  });
});

describe('a truncated multipart upload', () => {
  it('the file part ends without its closing boundary: 400, nothing kept', async () => {
    const small = await createHarness({});
    try {
      const boundary = 'tRuncated';
      const response = await small.call({
        method: 'POST',
        url: '/media',
        headers: {
          ...small.as(small.alice),
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          png,
        ]),
      });
      expectError(response, 400, 'bad_request');
      expect(response.json().error.message).toMatch(/multipart/);
      expect(small.deps.media.store.objects.size).toBe(0);
    } finally {
      await small.close();
    }
  });
});

describe('quota and type checks of an upload', () => {
  it('MEDIA_QUOTA_BYTES: 413 media_quota_exceeded naming it, nothing kept', async () => {
    const small = await createHarness({});
    small.deps.media.quotaBytes = 1500;
    try {
      const first = await small.call({
        method: 'POST',
        url: '/media',
        headers: { ...small.as(small.alice), 'content-type': 'image/png' },
        payload: png,
      });
      expect(first.statusCode, first.body).toBe(201);
      const second = await small.call({
        method: 'POST',
        url: '/media',
        headers: { ...small.as(small.alice), 'content-type': 'image/png' },
        payload: png,
      });
      expectError(second, 413, 'media_quota_exceeded');
      expect(second.json().error.message).toContain('MEDIA_QUOTA_BYTES');
      expect(second.headers.connection).toBe('close');
      expect(small.deps.media.store.objects.size).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('first bytes that are not the declared type: 415 media_type_mismatch, nothing kept', async () => {
    const small = await createHarness({});
    try {
      const html = Buffer.from('<html><body><script>alert(1)</script></body></html>');
      const raw = await small.call({
        method: 'POST',
        url: '/media',
        headers: { ...small.as(small.alice), 'content-type': 'image/png' },
        payload: html,
      });
      expectError(raw, 415, 'media_type_mismatch');
      expect(raw.json().error.message).toContain('image/png');
      const boundary = 'sNiff';
      const multipart = await small.call({
        method: 'POST',
        url: '/media',
        headers: {
          ...small.as(small.alice),
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload: Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
          ),
          html,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
      expectError(multipart, 415, 'media_type_mismatch');
      expect(small.deps.media.store.objects.size).toBe(0);
    } finally {
      await small.close();
    }
  });
});
