import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'social-publisher.pid';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is one Postgres in one process: two processes opening the same directory would
 * corrupt it. Holds a pid file for as long as the database is open; a file left by a process
 * that no longer runs is taken over. Returns the release function.
 */
export function lockDataDirectory(directory: string): () => void {
  const file = join(directory, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(holder) && holder > 0 && isRunning(holder)) {
        throw new Error(
          `the embedded database in ${directory} is in use by process ${holder}; stop that process first (an embedded database serves one process)`,
        );
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`could not lock the embedded database in ${directory}`);
}
