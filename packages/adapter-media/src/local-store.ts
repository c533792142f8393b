/**
 * MEDIA_STORE=local: one file per media under MEDIA_DIR. An upload is written to a temporary
 * name and renamed once complete, so a reader never sees half a file and a failed upload leaves
 * only a temporary file, removed at once. The directory is the owner's only (0700, made so
 * when it already exists) and every file is written 0600: uploads are nobody else's to read on
 * the host, whatever the process umask.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, MediaStore, StoredMedia } from '@social-publisher/domain';

/** Keys are media names; anything that could leave the directory is refused outright. */
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

function pathOf(dir: string, key: string): string {
  if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`invalid media key "${key}"`);
  return join(dir, key);
}

const isMissing = (error: unknown): boolean =>
  (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

export function createLocalMediaStore(options: { dir: string }): MediaStore {
  const { dir } = options;
  let ready: Promise<unknown> | undefined;
  const ensureDir = () => {
    // mkdir's mode applies to every folder it creates; chmod tightens one that existed.
    ready ??= mkdir(dir, { recursive: true, mode: 0o700 }).then(() => chmod(dir, 0o700));
    return ready;
  };

  async function sizeOf(key: string): Promise<number | null> {
    try {
      const info = await stat(pathOf(dir, key));
      return info.isFile() ? info.size : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  return {
    kind: 'local',

    async put(key: string, body: Readable): Promise<void> {
      await ensureDir();
      const path = pathOf(dir, key);
      const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
      try {
        await pipeline(body, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
        await rename(partial, path);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },

    async get(key: string, range?: ByteRange): Promise<StoredMedia | null> {
      const size = await sizeOf(key);
      if (size === null) return null;
      const body = createReadStream(
        pathOf(dir, key),
        range ? { start: range.start, end: range.end } : {},
      );
      return { body, size };
    },

    async head(key: string): Promise<{ size: number } | null> {
      const size = await sizeOf(key);
      return size === null ? null : { size };
    },

    async delete(key: string): Promise<void> {
      await rm(pathOf(dir, key), { force: true });
    },

    async close(): Promise<void> {},
  };
}
