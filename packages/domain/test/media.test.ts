// Hosted media's use cases over the in-memory fakes: upload (metered, hashed, limited), get,
// list, delete (409 in use), the public read, the sweep, and our URLs in posts (checked
// against storage, linked, never probed).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  bareContentType,
  cancelPost,
  createPost,
  deleteMedia,
  editPost,
  findPublicMedia,
  getMedia,
  hostedMediaName,
  hostedMediaNames,
  isMediaName,
  listMediaPage,
  type MediaProbe,
  mediaUrlFields,
  mediaUrlOf,
  openPublicMedia,
  startsAsMediaType,
  sweepExpiredMedia,
  uploadMedia,
  validatePost,
} from '../src/index.ts';
import {
  createTestDeps,
  ScriptedPlatformRegistry,
  seedConnection,
  seedUser,
  seedWorkspace,
} from '../src/testing/index.ts';
import { errorOf, testRules, UNKNOWN_ID, unwrap } from './support.ts';

const DAY = 86_400_000;
/** An MP4's first box (`ftyp`), then bytes: what sniffing a video/mp4 upload looks for. */
const BYTES = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypisom, not really a video, but bytes all the same'),
]);
const WEBP = Buffer.concat([Buffer.from('RIFF\x10\0\0\0WEBPVP8 ', 'latin1'), Buffer.alloc(40, 1)]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(40, 2),
]);
const HTML = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const chunks = (bytes: Buffer) => Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]);

async function setup() {
  const deps = createTestDeps({ platforms: new ScriptedPlatformRegistry(testRules()) });
  const alice = await seedUser(deps, 'alice@example.com');
  const bob = await seedUser(deps, 'bob@example.com');
  const x = await seedConnection(deps, alice.user.id, 'twitter');
  const up = async (who = alice, type = 'video/mp4') =>
    unwrap(await uploadMedia(deps, who.ctx, { body: chunks(BYTES), contentType: type }));
  return { deps, alice, bob, x, up };
}

describe('uploadMedia', () => {
  it('streams the bytes into the store, counted and hashed, with an expiry', async () => {
    const { deps, alice } = await setup();
    const media = unwrap(
      await uploadMedia(deps, alice.ctx, {
        body: chunks(BYTES),
        contentType: 'video/mp4',
        filename: 'clip.mp4',
      }),
    );
    expect(media).toMatchObject({
      accountId: alice.user.id,
      size: BYTES.length,
      sha256: sha(BYTES),
      filename: 'clip.mp4',
      contentType: 'video/mp4',
    });
    expect(isMediaName(media.name)).toBe(true);
    expect(media.name).toMatch(/\.mp4$/);
    expect(media.expiresAt?.getTime()).toBe(media.createdAt.getTime() + 30 * DAY);
    expect(deps.media.store.objects.get(media.name)?.bytes.equals(BYTES)).toBe(true);
  });

  it('refuses types, file names, empty bodies, and bodies over the limit (nothing kept)', async () => {
    const { deps, alice } = await setup();
    expect(
      errorOf(await uploadMedia(deps, alice.ctx, { body: chunks(BYTES), contentType: 'image/gif' }))
        .code,
    ).toBe('unsupported_media_type');
    for (const filename of ['', 'a/b', 'a\\b', 'a\u0000b', 'x'.repeat(256)]) {
      const error = errorOf(
        await uploadMedia(deps, alice.ctx, {
          body: chunks(BYTES),
          contentType: 'image/png',
          filename,
        }),
      );
      expect(error.code).toBe('validation_failed');
    }
    const empty = errorOf(
      await uploadMedia(deps, alice.ctx, { body: Readable.from([]), contentType: 'image/png' }),
    );
    expect(empty.code).toBe('validation_failed');
    deps.media.maxBytes = 20;
    expect(
      errorOf(
        await uploadMedia(deps, alice.ctx, {
          body: chunks(BYTES),
          contentType: 'image/png',
          declaredBytes: BYTES.length,
        }),
      ).code,
    ).toBe('media_too_large');
    expect(
      errorOf(await uploadMedia(deps, alice.ctx, { body: chunks(BYTES), contentType: 'image/png' }))
        .code,
    ).toBe('media_too_large');
    expect(deps.media.store.objects.size).toBe(0);
  });

  it('a failing body or a failing insert leaves nothing behind', async () => {
    const { deps, alice } = await setup();
    const failing = new Readable({
      read() {
        this.destroy(new Error('client went away'));
      },
    });
    await expect(
      uploadMedia(deps, alice.ctx, { body: failing, contentType: 'image/png' }),
    ).rejects.toThrow('client went away');
    deps.store.failNext('media.insert');
    await expect(
      uploadMedia(deps, alice.ctx, { body: chunks(BYTES), contentType: 'video/mp4' }),
    ).rejects.toThrow();
    expect(deps.media.store.objects.size).toBe(0);
  });

  it('without media hosting every use case says so', async () => {
    const { deps, alice } = await setup();
    const bare = { ...deps, media: undefined };
    expect(
      errorOf(await uploadMedia(bare, alice.ctx, { body: chunks(BYTES), contentType: 'image/png' }))
        .code,
    ).toBe('not_found');
    expect(errorOf(await deleteMedia(bare, alice.actor, UNKNOWN_ID)).code).toBe('not_found');
    expect(await findPublicMedia(bare, 'x')).toBeNull();
    expect(await openPublicMedia(bare, 'x')).toBeNull();
    expect(await sweepExpiredMedia(bare)).toEqual({ settled: 0, deleted: 0 });
  });
});

describe('get, list, public read, delete', () => {
  it('belongs to its account', async () => {
    const { deps, alice, bob, up } = await setup();
    const media = await up();
    expect(unwrap(await getMedia(deps, alice.actor, media.id)).id).toBe(media.id);
    expect(errorOf(await getMedia(deps, bob.actor, media.id)).code).toBe('not_found');
    expect(errorOf(await getMedia(deps, alice.actor, 'nope')).code).toBe('not_found');
    expect(errorOf(await deleteMedia(deps, bob.actor, media.id)).code).toBe('not_found');
  });

  it('lists newest first, paged; a workspace has its own', async () => {
    const { deps, alice, up } = await setup();
    const first = await up();
    deps.clock.advance(1000);
    const second = await up();
    const team = await seedWorkspace(deps, alice);
    const inTeam = unwrap(
      await uploadMedia(deps, team.ctx, { body: chunks(WEBP), contentType: 'image/webp' }),
    );
    const page = unwrap(await listMediaPage(deps, alice.ctx, { limit: 1 }));
    expect(page.media.map((m) => m.id)).toEqual([second.id]);
    const next = unwrap(
      await listMediaPage(deps, alice.ctx, { limit: 1, before: page.nextCursor ?? '' }),
    );
    expect(next).toEqual({ media: [expect.objectContaining({ id: first.id })], nextCursor: null });
    expect(
      unwrap(await listMediaPage(deps, team.ctx, { limit: 10 })).media.map((m) => m.id),
    ).toEqual([inTeam.id]);
    const bad = errorOf(await listMediaPage(deps, alice.ctx, { limit: 0, before: '!' }));
    expect(bad.code === 'validation_failed' && bad.details.map((p) => p.field)).toEqual([
      'limit',
      'before',
    ]);
  });

  it('the public read serves live media by name, ranges included', async () => {
    const { deps, up } = await setup();
    const media = await up();
    expect((await findPublicMedia(deps, media.name))?.id).toBe(media.id);
    const opened = await openPublicMedia(deps, media.name, { start: 4, end: 9 });
    const bytes = Buffer.concat((await opened?.stored.body.toArray()) ?? []);
    expect(bytes.equals(BYTES.subarray(4, 10))).toBe(true);
    expect(await findPublicMedia(deps, '../etc/passwd')).toBeNull();
    expect(await openPublicMedia(deps, `${'0'.repeat(32)}.mp4`)).toBeNull();
    deps.clock.advance(31 * DAY);
    expect(await findPublicMedia(deps, media.name)).toBeNull();
    expect(await openPublicMedia(deps, media.name)).toBeNull();
  });
});

describe('our media in posts', () => {
  it('are checked against storage, linked, kept from delete while the post is unfinished', async () => {
    const { deps, alice, bob, x, up } = await setup();
    const media = await up();
    const url = mediaUrlOf(deps.settings.publicBaseUrl, media.name);
    const bobs = await up(bob);
    const refused = errorOf(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'hi',
          social_account_ids: [x.id],
          media_urls: [mediaUrlOf(deps.settings.publicBaseUrl, bobs.name), `${url}x`],
        },
        'now',
      ),
    );
    expect(refused.code === 'validation_failed' && refused.details).toEqual([
      { field: 'media_urls[0]', message: expect.stringMatching(/^media_not_found/) },
      { field: 'media_urls[1]', message: expect.stringMatching(/^media_not_found/) },
    ]);

    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'hi',
          social_account_ids: [x.id],
          media_urls: [url],
          scheduled_at: '2026-06-01T00:00:00Z',
        },
        'scheduled',
      ),
    );
    expect(unwrap(await getMedia(deps, alice.actor, media.id)).expiresAt).toBeNull();
    expect(errorOf(await deleteMedia(deps, alice.actor, media.id)).code).toBe('conflict');
    // An edit keeping it is fine; the sweep leaves it while the post is unfinished.
    unwrap(await editPost(deps, alice.actor, post.id, { content: 'edited', media_urls: [url] }));
    deps.clock.advance(400 * DAY);
    expect(await sweepExpiredMedia(deps)).toMatchObject({ deleted: 1 }); // bob's, unused
    unwrap(await cancelPost(deps, alice.actor, post.id));
    expect((await sweepExpiredMedia(deps)).deleted).toBe(0);
    const settled = unwrap(await getMedia(deps, alice.actor, media.id));
    expect(settled.expiresAt?.getTime()).toBe(deps.clock.now().getTime() + 30 * DAY);
    unwrap(await deleteMedia(deps, alice.actor, media.id));
    expect(deps.media.store.objects.has(media.name)).toBe(false);
    expect(errorOf(await getMedia(deps, alice.actor, media.id)).code).toBe('not_found');
  });

  it('a dry run never fetches our own urls', async () => {
    const { deps, alice, x, up } = await setup();
    const media = await up();
    const asked: string[] = [];
    const probe: MediaProbe = {
      async probe(url) {
        asked.push(url);
        return { ok: true, contentType: 'video/mp4', bytes: 1 };
      },
    };
    const url = mediaUrlOf(deps.settings.publicBaseUrl, media.name);
    const result = await validatePost(
      { ...deps, mediaProbe: probe },
      alice.ctx,
      {
        content: 'hi',
        social_account_ids: [x.id],
        media_urls: [url, 'https://cdn.example.test/a.mp4'],
      },
      'now',
    );
    expect(result.valid).toBe(true);
    expect(asked).toEqual(['https://cdn.example.test/a.mp4']);
  });

  it('a store failure in the sweep leaves the row for the next pass', async () => {
    const { deps, up } = await setup();
    const media = await up();
    deps.clock.advance(31 * DAY);
    const store = deps.media.store;
    const original = store.delete.bind(store);
    store.delete = async () => {
      throw new Error('store down');
    };
    expect((await sweepExpiredMedia(deps)).deleted).toBe(0);
    store.delete = original;
    expect((await sweepExpiredMedia(deps)).deleted).toBe(1);
    expect(await deps.repos.media.findById(media.id)).toBeNull();
  });
});

describe('the upload quota and the type sniffing', () => {
  it('MEDIA_QUOTA_BYTES: an upload that would pass it is refused while streaming, nothing kept', async () => {
    const { deps, alice, bob, up } = await setup();
    deps.media.quotaBytes = BYTES.length * 2 + 5;
    await up();
    await up();
    // Told by Content-Length: refused before a byte is read.
    const declared = await uploadMedia(deps, alice.ctx, {
      body: chunks(BYTES),
      contentType: 'video/mp4',
      declaredBytes: BYTES.length,
    });
    expect(errorOf(declared)).toMatchObject({
      code: 'media_quota_exceeded',
      message: expect.stringContaining('MEDIA_QUOTA_BYTES'),
    });
    // Not told: refused as the bytes pass it.
    let read = 0;
    const endless = new Readable({
      read() {
        read += 1;
        this.push(read === 1 ? BYTES : Buffer.alloc(1024, 3));
      },
    });
    const streamed = await uploadMedia(deps, alice.ctx, {
      body: endless,
      contentType: 'video/mp4',
    });
    expect(errorOf(streamed).code).toBe('media_quota_exceeded');
    expect(deps.media.store.objects.size).toBe(2);
    expect(await deps.repos.media.totalBytesByAccount(alice.user.id)).toBe(BYTES.length * 2);
    // Another account has its own quota; a deleted media frees its bytes.
    await expect(
      uploadMedia(deps, bob.ctx, { body: chunks(BYTES), contentType: 'video/mp4' }),
    ).resolves.toMatchObject({ ok: true });
    const page = unwrap(await listMediaPage(deps, alice.ctx, { limit: 1 }));
    unwrap(await deleteMedia(deps, alice.actor, page.media[0]?.id ?? ''));
    await expect(up()).resolves.toMatchObject({ size: BYTES.length });
  });

  it('a refusal before the store reads the body is answered, never an unhandled stream error', async () => {
    // A store that starts reading only after some work of its own (the local store creates its
    // folder first): a short body is judged and refused while nobody listens to the meter yet.
    const { deps, alice } = await setup();
    const { store } = deps.media;
    const put = store.put.bind(store);
    store.put = async (key, body, type) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return put(key, body, type);
    };
    const unhandled: unknown[] = [];
    const record = (error: unknown) => unhandled.push(error);
    process.on('uncaughtException', record);
    try {
      for (const [bytes, type] of [
        [HTML, 'image/png'],
        [Buffer.from([0x89, 0x50]), 'image/png'],
      ] as const) {
        const refused = await uploadMedia(deps, alice.ctx, {
          body: Readable.from([bytes]),
          contentType: type,
        });
        expect(errorOf(refused).code).toBe('media_type_mismatch');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(store.objects.size).toBe(0);
    } finally {
      process.off('uncaughtException', record);
    }
  });

  it('an upload whose first bytes are not its type is refused (nothing kept)', async () => {
    const { deps, alice } = await setup();
    for (const [bytes, type] of [
      [HTML, 'image/png'],
      [HTML, 'video/mp4'],
      [PNG, 'image/jpeg'],
      [BYTES, 'image/webp'],
      [Buffer.from([0x89, 0x50]), 'image/png'],
    ] as const) {
      const refused = await uploadMedia(deps, alice.ctx, {
        body: chunks(bytes),
        contentType: type,
      });
      expect(errorOf(refused)).toMatchObject({
        code: 'media_type_mismatch',
        message: expect.stringContaining(type),
      });
    }
    // One byte at a time: the check waits for enough of them.
    const trickled = Readable.from([...PNG].map((byte) => Buffer.from([byte])));
    await expect(
      uploadMedia(deps, alice.ctx, { body: trickled, contentType: 'image/png' }),
    ).resolves.toMatchObject({ ok: true, value: { size: PNG.length, sha256: sha(PNG) } });
    expect(deps.media.store.objects.size).toBe(1);
  });

  it('sniffs the magic bytes of each accepted type', () => {
    const head = (...parts: Array<string | number[]>) =>
      Buffer.concat(
        parts.map((part) =>
          typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part),
        ),
      );
    const box = (type: string) => head([0, 0, 0, 0x20], type, 'isom');
    expect(startsAsMediaType('image/png', PNG)).toBe(true);
    expect(startsAsMediaType('image/png', PNG.subarray(0, 7))).toBe(false);
    expect(startsAsMediaType('image/jpeg', head([0xff, 0xd8, 0xff, 0xe0], 'JFIF'))).toBe(true);
    expect(startsAsMediaType('image/jpeg', head([0xff, 0xd8], 'x'))).toBe(false);
    expect(startsAsMediaType('image/webp', WEBP)).toBe(true);
    expect(startsAsMediaType('image/webp', head('RIFF\0\0\0\0WAVEfmt '))).toBe(false);
    expect(startsAsMediaType('video/mp4', box('ftyp'))).toBe(true);
    expect(startsAsMediaType('video/quicktime', box('ftyp'))).toBe(true);
    expect(startsAsMediaType('video/quicktime', box('moov'))).toBe(true);
    expect(startsAsMediaType('video/quicktime', box('mdat'))).toBe(true);
    expect(startsAsMediaType('video/mp4', box('html'))).toBe(false);
    for (const type of ['image/png', 'image/jpeg', 'image/webp', 'video/mp4'] as const) {
      expect(startsAsMediaType(type, HTML)).toBe(false);
      expect(startsAsMediaType(type, Buffer.alloc(0))).toBe(false);
    }
  });
});

describe('hosted media rules', () => {
  it('recognise our urls and names', () => {
    const base = 'https://pub.example.com';
    expect(hostedMediaName(base, `${base}/m/abc.mp4`)).toBe('abc.mp4');
    expect(hostedMediaName(base, 'https://cdn.example.com/m/abc.mp4')).toBeNull();
    expect(hostedMediaNames(base, [`${base}/m/a`, `${base}/m/a`, 'https://x.test/'])).toEqual([
      'a',
    ]);
    expect(isMediaName(`${'a'.repeat(32)}.webp`)).toBe(true);
    expect(isMediaName(`${'a'.repeat(31)}.webp`)).toBe(false);
    expect(bareContentType('Video/MP4; charset=x')).toBe('video/mp4');
    expect(bareContentType(undefined)).toBe('');
    // Follow-ups' media are named by their own field paths.
    expect(
      mediaUrlFields({ mediaUrls: ['a'], thread: [{ mediaUrls: [] }, { mediaUrls: ['b'] }] }),
    ).toEqual([
      { url: 'a', field: 'media_urls[0]' },
      { url: 'b', field: 'thread[1].media_urls[0]' },
    ]);
  });
});
