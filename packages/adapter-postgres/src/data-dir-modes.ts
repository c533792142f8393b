/**
 * The embedded mode's data directory (DATA_DIR) is the owner's only, as PostgreSQL demands of
 * its own data directory: folders 0700, files 0600, the PGlite database, the generated
 * encryption key and local media under it included.
 */
import fs, { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Group and other bits: none may be set anywhere under DATA_DIR. */
const GROUP_OTHER = 0o077;

/**
 * Takes group and other bits off `path` and, for a folder, off everything under it (owner
 * bits are kept; a folder stays 0700). Symbolic links are neither followed nor changed.
 */
export function tightenTree(path: string): void {
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (info.isSymbolicLink()) return;
  if (info.isDirectory()) {
    if ((info.mode & 0o777) !== 0o700) chmodSync(path, 0o700);
    for (const entry of readdirSync(path)) tightenTree(join(path, entry));
    return;
  }
  if ((info.mode & GROUP_OTHER) !== 0) chmodSync(path, info.mode & 0o700);
}

/**
 * Files created by this process from now on are the owner's only. PGlite creates its files
 * through Node's fs (Emscripten's NODEFS: `writeFileSync(path, '', { mode: 0o777 })`,
 * `mkdirSync(path, 0o777)`) whenever it needs one (new relation segments, WAL, the files a
 * checkpoint or VACUUM rewrites), on its own thread: a chmod after the fact would leave each
 * of them readable for a while and would have to chase every one, while the umask applies the
 * moment the file is created. It is the process's, so it covers that thread too. Only the
 * embedded mode sets it (the process then serves one data directory of its own); in a worker
 * thread, where Node cannot change it, the tightening at open and at close still applies.
 * Returns whether it was set.
 */
export function restrictUmask(): boolean {
  try {
    const previous = process.umask(GROUP_OTHER);
    process.umask(previous | GROUP_OTHER);
    return true;
  } catch {
    return false;
  }
}

/**
 * The umask does not hold against an explicit chmod, and PGlite makes some: the files of the
 * data directory it unpacks at its first start are `chmodSync(path, 0o666)`. Called in
 * PGlite's own thread (pglite-thread/worker.ts), before it starts: every chmod made there
 * loses its group and other bits. Node's fs is that thread's own module, so nothing else in
 * the process is changed.
 */
export function ownerOnlyChmodsInThisThread(): void {
  const ownerOnly = (mode: fs.Mode): fs.Mode =>
    (typeof mode === 'string' ? Number.parseInt(mode, 8) : mode) & ~GROUP_OTHER;
  const chmod = fs.chmodSync;
  const fchmod = fs.fchmodSync;
  fs.chmodSync = (path, mode) => chmod(path, ownerOnly(mode));
  fs.fchmodSync = (fd, mode) => fchmod(fd, ownerOnly(mode));
}

/**
 * At the embedded database's open: DATA_DIR made (0700) or tightened with everything under it,
 * and the umask restricted for what is written while it runs.
 */
export function secureDataDirectory(dataDir: string): void {
  restrictUmask();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tightenTree(dataDir);
}
