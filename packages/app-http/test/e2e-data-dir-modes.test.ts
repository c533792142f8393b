/**
 * The embedded mode's data directory is its owner's only (as PostgreSQL demands of its own):
 * started on a fresh DATA_DIR under the loosest umask, with local media under it, after a post
 * is published and a media uploaded, and again once stopped, no folder or file under DATA_DIR
 * has a group or other permission bit. A DATA_DIR left loose (by an older version) is tightened
 * at start. Embedded only: production keeps nothing on local disk but MEDIA_DIR, whose store
 * sets its own modes (adapter-media's tests).
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type System, startSystem, waitFor } from './e2e/system.ts';

/** Every path under `root` (itself included) with a group or other bit, and its mode. */
function looseUnder(root: string): string[] {
  const loose: string[] = [];
  const walk = (path: string) => {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return;
    if ((info.mode & 0o077) !== 0) loose.push(`${path} ${(info.mode & 0o777).toString(8)}`);
    if (info.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(root);
  return loose;
}

/** How many files and folders are under `root`. */
function countUnder(root: string): number {
  const info = lstatSync(root);
  return info.isDirectory()
    ? 1 + readdirSync(root).reduce((sum, entry) => sum + countUnder(join(root, entry)), 0)
    : 1;
}

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(2000, 9),
]);

describe.each(['fresh', 'loose'] as const)('embedded DATA_DIR modes, %s directory', (kind) => {
  const root = mkdtempSync(join(tmpdir(), 'sp-data-modes-'));
  const dataDir = join(root, 'data');
  let system: System | undefined;
  let umask = 0;

  beforeAll(async () => {
    // The loosest umask: without the fix every file would be 0666 and every folder 0777.
    umask = process.umask(0);
    if (kind === 'loose') {
      // What an older version left: everything readable by everyone.
      mkdirSync(join(dataDir, 'media'), { recursive: true, mode: 0o777 });
      mkdirSync(join(dataDir, 'pglite'), { recursive: true, mode: 0o777 });
      writeFileSync(join(dataDir, 'media', 'old.png'), PNG, { mode: 0o666 });
      for (const folder of [dataDir, join(dataDir, 'media'), join(dataDir, 'pglite')]) {
        chmodSync(folder, 0o777);
      }
      expect(looseUnder(dataDir).length).toBeGreaterThan(0);
    }
    system = await startSystem({
      mode: 'embedded',
      env: { DATA_DIR: dataDir, MEDIA_DIR: join(dataDir, 'media') },
    });
  }, 60_000);

  afterAll(async () => {
    try {
      await system?.close();
    } finally {
      process.umask(umask);
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('no group or other bit anywhere under DATA_DIR, running and stopped', async () => {
    const sys = system as System;
    const connection = await sys.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'twitter',
      sandbox: true,
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    const uploaded = await fetch(`${sys.api.baseUrl}/media?filename=a.png`, {
      method: 'POST',
      headers: { authorization: sys.api.authorization(), 'content-type': 'image/png' },
      body: PNG,
    });
    expect(uploaded.status).toBe(201);
    const post = await sys.api.call<{ data: { id: string } }>('POST', '/posts', {
      content: 'modes',
      social_account_ids: [connection.body.data.id],
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    await waitFor('the post to be published', async () => {
      const got = await sys.api.call<{ data: { status: string } }>(
        'GET',
        `/posts/${post.body.data.id}`,
      );
      return got.body.data.status === 'published' ? true : undefined;
    });
    // The database, the key, the media: all there, none loose.
    expect(readdirSync(dataDir)).toEqual(
      expect.arrayContaining(['encryption.key', 'media', 'pglite']),
    );
    expect(readdirSync(join(dataDir, 'media')).filter((name) => name.endsWith('.png')).length).toBe(
      kind === 'loose' ? 2 : 1,
    );
    expect(countUnder(join(dataDir, 'pglite'))).toBeGreaterThan(100);
    expect(looseUnder(dataDir)).toEqual([]);

    await system?.close();
    system = undefined;
    expect(looseUnder(dataDir)).toEqual([]);
  }, 60_000);
});
