/**
 * A throw-away PgBouncer in front of a PostgreSQL server (Debian's `pgbouncer`), in transaction
 * pooling mode by default: what teams put between many processes and a managed PostgreSQL. It
 * refuses to run as root, so as root it is started as the `postgres` user (runuser).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isListening } from './net.ts';

export interface PgBouncer {
  port: number;
  /** `url` with its host and port replaced by PgBouncer's. */
  via(url: string): string;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why PgBouncer cannot be started here, or undefined. */
export function pgBouncerUnavailable(): string | undefined {
  try {
    execFileSync('pgbouncer', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'pgbouncer is not installed (apt-get install -y pgbouncer)';
  }
}

export async function startPgBouncer(options: {
  serverUrl: string;
  poolMode?: 'transaction' | 'session';
  poolSize?: number;
}): Promise<PgBouncer> {
  const server = new URL(options.serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'sp-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const user = decodeURIComponent(server.username || 'postgres');
  const ini = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432} user=${user}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = any',
    `pool_mode = ${options.poolMode ?? 'transaction'}`,
    `default_pool_size = ${options.poolSize ?? 20}`,
    'max_client_conn = 1000',
    'ignore_startup_parameters = extra_float_digits,options',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
  ].join('\n');
  const file = join(dir, 'pgbouncer.ini');
  writeFileSync(file, `${ini}\n`);
  chmodSync(file, 0o644);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', 'pgbouncer', file], { stdio: 'ignore' })
    : spawn('pgbouncer', [file], { stdio: 'ignore' });
  const close = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await isListening(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`pgbouncer did not start on ${port}`);
    }
    await sleep(50);
  }
  return {
    port,
    via(url: string) {
      const target = new URL(url);
      target.hostname = '127.0.0.1';
      target.port = String(port);
      return target.toString();
    },
    close,
  };
}
