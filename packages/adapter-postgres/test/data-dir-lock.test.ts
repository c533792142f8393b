import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDataDirectory } from '../src/data-dir-lock.ts';

describe('lockDataDirectory (one process per embedded database)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sp-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second holder while the first holds the directory, and allows it after release', () => {
    const release = lockDataDirectory(dir);
    expect(() => lockDataDirectory(dir)).toThrow(/in use by process \d+/);
    release();
    const again = lockDataDirectory(dir);
    again();
  });

  it('takes over a lock left by a process that no longer runs', () => {
    // Pids are below 2^22 on Linux; this one cannot be running.
    writeFileSync(join(dir, 'social-publisher.pid'), '99999999');
    const release = lockDataDirectory(dir);
    release();
  });
});
