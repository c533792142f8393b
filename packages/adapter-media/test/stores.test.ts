/**
 * Both media stores under one contract: local disk, and S3 against s3rver (an S3-compatible
 * server started here: the S3 REST API, with multipart uploads, ranged GETs and HEAD).
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { MediaStore } from '@social-publisher/domain';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalMediaStore, createS3MediaStore } from '../src/index.ts';

const key = () => `${randomBytes(16).toString('hex')}.mp4`;

/** `size` bytes in chunks of 64 KiB, without holding them all. */
function generated(size: number, seed = 7): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return this.push(null);
      const n = Math.min(65_536, size - sent);
      const chunk = Buffer.alloc(n, (seed + sent / 65_536) % 251);
      sent += n;
      this.push(chunk);
    },
  });
}

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

function describeStore(
  name: string,
  open: () => Promise<{ store: MediaStore; close(): Promise<void> }>,
) {
  describe(`${name} media store`, () => {
    let store: MediaStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    }, 30_000);
    afterAll(async () => {
      await store?.close();
      await close?.();
    });

    it('stores a stream and reads it back whole, by range, and its size', async () => {
      const name = key();
      await store.put(
        name,
        Readable.from([Buffer.from('hello '), Buffer.from('world')]),
        'video/mp4',
      );
      expect(await store.head(name)).toEqual({ size: 11 });
      const whole = await store.get(name);
      expect(whole?.size).toBe(11);
      expect(await text(whole?.body as Readable)).toBe('hello world');
      const part = await store.get(name, { start: 6, end: 10 });
      expect(part?.size).toBe(11);
      expect(await text(part?.body as Readable)).toBe('world');
    });

    it('a multipart-sized upload (past one 8 MiB part) arrives byte for byte', async () => {
      const name = key();
      const size = 17 * 1024 * 1024 + 123;
      await store.put(name, generated(size), 'video/mp4');
      expect(await store.head(name)).toEqual({ size });
      const expected = createHash('sha256')
        .update(await bytesOf(generated(size)))
        .digest('hex');
      const got = await store.get(name);
      const actual = createHash('sha256')
        .update(await bytesOf(got?.body as Readable))
        .digest('hex');
      expect(actual).toBe(expected);
      const tail = await store.get(name, { start: size - 3, end: size - 1 });
      expect((await bytesOf(tail?.body as Readable)).length).toBe(3);
    }, 60_000);

    it('a body that fails leaves no object', async () => {
      const name = key();
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024, 1));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(store.put(name, failing, 'video/mp4')).rejects.toThrow();
      expect(await store.head(name)).toBeNull();
      expect(await store.get(name)).toBeNull();
    });

    it('a body that failed before the store was called is refused too', async () => {
      // The domain's meter can fail a short upload before the store starts reading it.
      const name = key();
      const failed = new Readable({ read() {} });
      failed.on('error', () => {});
      failed.destroy(new Error('refused before the store read it'));
      await new Promise((resolve) => setImmediate(resolve));
      await expect(store.put(name, failed, 'video/mp4')).rejects.toThrow();
      expect(await store.head(name)).toBeNull();
    });

    it('deletes (twice is fine); a missing key is null', async () => {
      const name = key();
      await store.put(name, Readable.from([Buffer.from('x')]), 'image/png');
      await store.delete(name);
      await store.delete(name);
      expect(await store.head(name)).toBeNull();
      expect(await store.get(name, { start: 0, end: 0 })).toBeNull();
    });
  });
}

describeStore('local', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-media-local-'));
  return {
    store: createLocalMediaStore({ dir: join(dir, 'nested') }),
    close: async () => {
      // No temporary file outlives a failed upload.
      expect(readdirSync(join(dir, 'nested')).filter((f) => f.endsWith('.part'))).toEqual([]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeStore('s3 (s3rver)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-media-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: 'media' }],
  });
  const { port } = await server.run();
  return {
    store: createS3MediaStore({
      bucket: 'media',
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    }),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('local media store keys', () => {
  it('refuses a key that could leave its directory', async () => {
    const store = createLocalMediaStore({ dir: tmpdir() });
    await expect(store.head('../etc/passwd')).rejects.toThrow(/invalid media key/);
  });
});

describe('local media store modes', () => {
  it('folders 0700 and files 0600 whatever the umask; an existing loose folder is tightened', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sp-media-modes-'));
    // The loosest umask: without explicit modes, files would be 0666 and folders 0777.
    const umask = process.umask(0);
    try {
      const fresh = createLocalMediaStore({ dir: join(root, 'a', 'b') });
      const name = key();
      await fresh.put(name, Readable.from([Buffer.from('bytes')]), 'video/mp4');
      for (const folder of [join(root, 'a'), join(root, 'a', 'b')]) {
        expect(statSync(folder).mode & 0o777).toBe(0o700);
      }
      expect(statSync(join(root, 'a', 'b', name)).mode & 0o777).toBe(0o600);

      const loose = join(root, 'loose');
      mkdirSync(loose, { mode: 0o777 });
      chmodSync(loose, 0o777);
      const existing = createLocalMediaStore({ dir: loose });
      await existing.put(key(), Readable.from([Buffer.from('bytes')]), 'video/mp4');
      expect(statSync(loose).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(umask);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
