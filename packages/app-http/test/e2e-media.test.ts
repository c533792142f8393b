/**
 * Hosted media end to end, in both modes, through the HTTP API on a real socket: POST /media
 * (raw bytes), GET /media/:id, the public url (HEAD, Range, no credential), a post to the fake
 * TikTok whose video_url is that url (pulled back byte for byte), DELETE (409 while a post that
 * is not finished uses it, 404 after), and the retention sweep (store and database). The
 * embedded mode runs twice: with the local store, and with MEDIA_STORE=s3 against s3rver (an
 * S3-compatible server started here; credentials from the standard AWS variables).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepExpiredMedia } from '@social-publisher/domain';
import S3rver from 's3rver';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Mode, PUBLIC_BASE_URL, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface MediaJson {
  id: string;
  url: string;
  content_type: string;
  size: number;
  sha256: string;
  expires_at: string | null;
}
interface PostJson {
  id: string;
  status: string;
}

type Store = 'local' | 's3';
const variants: Array<[Mode, Store]> = [
  ['production', 'local'],
  ['embedded', 'local'],
  ['embedded', 's3'],
];
const DAY = 86_400_000;
/** 3 MiB of a repeating pattern after an MP4's `ftyp` box: several chunks on every path. */
const VIDEO = Buffer.alloc(3 * 1024 * 1024 + 17, 'media-e2e-');
Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]).copy(VIDEO);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(variants)('hosted media end to end, %s mode, %s store', (mode, storeKind) => {
  let tiktok = '';
  let s3: S3rver | undefined;
  const savedEnv = { ...process.env };
  const mediaDir = join(mkdtempSync(join(tmpdir(), `sp-e2e-media-${mode}-`)), 'media');
  /** Whether the store holds `name` (the local store's files only; s3: through the url). */
  const onDisk = (name: string) => storeKind === 'local' && existsSync(join(mediaDir, name));

  async function storeEnv(): Promise<Record<string, string>> {
    if (storeKind === 'local') return { MEDIA_DIR: mediaDir };
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(mediaDir, '..'),
      configureBuckets: [{ name: 'media' }],
    });
    const { port } = await s3.run();
    // The SDK's default chain reads these, as it would in a deployment.
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    return {
      MEDIA_STORE: 's3',
      MEDIA_S3_BUCKET: 'media',
      MEDIA_S3_ENDPOINT: `http://127.0.0.1:${port}`,
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
    };
  }

  const e2e = useSystem(mode, {
    prepare: async () => ({ env: await storeEnv() }),
    release: async () => {
      await s3?.close();
      process.env.AWS_ACCESS_KEY_ID = savedEnv.AWS_ACCESS_KEY_ID;
      process.env.AWS_SECRET_ACCESS_KEY = savedEnv.AWS_SECRET_ACCESS_KEY;
      if (savedEnv.AWS_ACCESS_KEY_ID === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (savedEnv.AWS_SECRET_ACCESS_KEY === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      rmSync(join(mediaDir, '..'), { recursive: true, force: true });
    },
  });

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'tiktok',
      external_id: 'tt-media-e2e',
      display_name: 'tiktok media',
      access_token: 'token-tiktok-media',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    tiktok = created.body.data.id;
  }, 60_000);

  const sys = () => e2e.get();
  /** The url as a platform would fetch it: PUBLIC_BASE_URL is this test's listening socket. */
  const reachable = (url: string) => `${sys().api.baseUrl}${url.slice(PUBLIC_BASE_URL.length)}`;

  async function upload(bytes: Buffer, type = 'video/mp4'): Promise<MediaJson> {
    const response = await fetch(`${sys().api.baseUrl}/media?filename=clip.mp4`, {
      method: 'POST',
      headers: { authorization: sys().api.authorization(), 'content-type': type },
      body: bytes,
    });
    const body = (await response.json()) as { data: MediaJson };
    expect(response.status, JSON.stringify(body)).toBe(201);
    return body.data;
  }

  async function waitForPost(id: string): Promise<PostJson> {
    return waitFor(
      `post ${id} to finish`,
      async () => {
        const got = await sys().api.call<{ data: PostJson }>('GET', `/posts/${id}`);
        return ['published', 'failed', 'partial'].includes(got.body.data.status)
          ? got.body.data
          : undefined;
      },
      20_000,
    );
  }

  it('upload, read back (HEAD, Range), publish to TikTok from the url, delete', async (ctx) => {
    e2e.orSkip(ctx);
    const { api } = sys();
    const media = await upload(VIDEO);
    expect(media).toMatchObject({ size: VIDEO.length, sha256: sha256(VIDEO) });
    expect(media.url.startsWith(`${PUBLIC_BASE_URL}/m/`)).toBe(true);
    // The local store's bytes are on disk under MEDIA_DIR, under the url's name.
    const name = media.url.slice(media.url.lastIndexOf('/') + 1);
    if (storeKind === 'local') expect(readdirSync(mediaDir)).toContain(name);

    const got = await api.call<{ data: MediaJson }>('GET', `/media/${media.id}`);
    expect(got.body.data).toEqual(media);

    const head = await fetch(reachable(media.url), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(VIDEO.length));
    expect(head.headers.get('content-type')).toBe('video/mp4');
    const range = await fetch(reachable(media.url), {
      headers: { range: 'bytes=1000000-1000009' },
    });
    expect(range.status).toBe(206);
    expect(
      Buffer.from(await range.arrayBuffer()).equals(VIDEO.subarray(1_000_000, 1_000_010)),
    ).toBe(true);

    // A scheduled post keeps the media in use: no delete.
    const later = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: 'media later',
      social_account_ids: [tiktok],
      media_urls: [media.url],
      scheduled_at: '2099-01-01T00:00:00Z',
    });
    expect(later.status, JSON.stringify(later.body)).toBe(201);
    const refused = await api.call<{ error: { code: string } }>('DELETE', `/media/${media.id}`);
    expect(refused.status).toBe(409);

    // Published now: TikTok is handed our url, and pulling it gives the bytes back.
    const now = await api.call<{ data: PostJson }>('POST', '/posts', {
      content: 'media now',
      social_account_ids: [tiktok],
      media_urls: [media.url],
    });
    expect(now.status, JSON.stringify(now.body)).toBe(201);
    expect((await waitForPost(now.body.data.id)).status).toBe('published');
    const publish = sys().tiktok.publishes.find(
      (p) => (p.body.source_info as { video_url?: string }).video_url === media.url,
    );
    expect(publish).toBeDefined();
    const pulled = await fetch(reachable(media.url));
    expect(sha256(Buffer.from(await pulled.arrayBuffer()))).toBe(media.sha256);

    expect((await api.call('DELETE', `/posts/${later.body.data.id}`)).status).toBe(200);
    const deleted = await api.call<{ data: MediaJson }>('DELETE', `/media/${media.id}`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await fetch(reachable(media.url))).status).toBe(404);
    expect((await api.call('GET', `/media/${media.id}`)).status).toBe(404);
    expect(onDisk(name)).toBe(false);
    // A post naming it now fails validation, naming the field.
    const stale = await api.call<{ error: { details: Array<{ field: string; message: string }> } }>(
      'POST',
      '/posts',
      { content: 'stale', social_account_ids: [tiktok], media_urls: [media.url] },
    );
    expect(stale.status).toBe(400);
    expect(stale.body.error.details[0]).toMatchObject({ field: 'media_urls[0]' });
    expect(stale.body.error.details[0]?.message).toMatch(/^media_not_found/);
  }, 60_000);

  it('the sweep deletes media MEDIA_RETENTION_DAYS after their last post ended', async (ctx) => {
    e2e.orSkip(ctx);
    const { api, deps } = sys();
    const used = await upload(VIDEO.subarray(0, 5000));
    const unused = await upload(VIDEO.subarray(0, 4000), 'video/quicktime');
    const post = await api.call<{ data: PostJson }>('POST', '/posts', {
      content: 'used then swept',
      social_account_ids: [tiktok],
      media_urls: [used.url],
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    expect((await waitForPost(post.body.data.id)).status).toBe('published');

    // 29 days on: both kept; 31 days on: both gone, from the store and the database.
    const at = (days: number) => ({
      ...deps,
      clock: { now: () => new Date(Date.now() + days * DAY) },
    });
    await sweepExpiredMedia(at(29));
    for (const media of [used, unused]) {
      expect((await api.call('GET', `/media/${media.id}`)).status).toBe(200);
    }
    const swept = await sweepExpiredMedia(at(31), 1000);
    expect(swept.deleted).toBeGreaterThanOrEqual(2);
    for (const media of [used, unused]) {
      expect((await api.call('GET', `/media/${media.id}`)).status).toBe(404);
      expect((await fetch(reachable(media.url))).status).toBe(404);
      expect(onDisk(media.url.slice(media.url.lastIndexOf('/') + 1))).toBe(false);
    }
  }, 60_000);
});
