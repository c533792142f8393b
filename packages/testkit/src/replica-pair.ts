/**
 * A throw-away PostgreSQL primary with a streaming replica (`initdb`, `pg_basebackup -R`), each
 * on its own port, both private to the test: what a team runs as a primary and a read replica.
 * The server refuses to run as root, so as root both run as the `postgres` user (runuser).
 * The replica can be paused (it stops replaying, so it lags), stopped and started again.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './net.ts';

export interface ReplicaPair {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops replaying WAL on the replica (`pg_wal_replay_pause`): it falls behind. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica at once (connections refused until `startReplica`). */
  stopReplica(): void;
  startReplica(): void;
  close(): void;
}

function binDirectory(): string {
  return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
}

/** Why a primary and replica cannot be started here, or undefined. */
export function replicaPairUnavailable(): string | undefined {
  try {
    execFileSync(join(binDirectory(), 'pg_basebackup'), ['--version'], { stdio: 'ignore' });
    execFileSync(join(binDirectory(), 'initdb'), ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'PostgreSQL server binaries (initdb, pg_basebackup) are not installed';
  }
}

function runAsServerUser(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, args];
  execFileSync(file, argv, { stdio: 'ignore', timeout: 60_000 });
}

async function onReplica(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Starts a primary and its streaming replica; `close` stops both and removes their files. */
export async function startReplicaPair(): Promise<ReplicaPair> {
  const bin = binDirectory();
  const dir = mkdtempSync(join(tmpdir(), 'sp-replica-'));
  chmodSync(dir, 0o777);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const server = (name: string, port: number) => [
    '-D',
    join(dir, name),
    '-l',
    join(dir, `${name}.log`),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
  ];
  const ctl = (name: string, port: number, action: string[]) =>
    runAsServerUser(join(bin, 'pg_ctl'), [...action, ...server(name, port)]);
  const stopAll = () => {
    for (const [name, port] of [
      ['replica', replicaPort],
      ['primary', primaryPort],
    ] as const) {
      try {
        ctl(name, port, ['stop', '-m', 'immediate', '-w']);
      } catch {
        // Not running.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    runAsServerUser(join(bin, 'initdb'), [
      '-D',
      join(dir, 'primary'),
      '-A',
      'trust',
      '-U',
      'postgres',
    ]);
    ctl('primary', primaryPort, ['start', '-w']);
    runAsServerUser(join(bin, 'pg_basebackup'), [
      ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
      ...['-D', join(dir, 'replica'), '-R', '-X', 'stream'],
    ]);
    ctl('replica', replicaPort, ['start', '-w']);
  } catch (error) {
    stopAll();
    throw error;
  }
  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    pauseReplay: () => onReplica(url(replicaPort), 'SELECT pg_wal_replay_pause()'),
    resumeReplay: () => onReplica(url(replicaPort), 'SELECT pg_wal_replay_resume()'),
    stopReplica: () => ctl('replica', replicaPort, ['stop', '-m', 'immediate', '-w']),
    startReplica: () => ctl('replica', replicaPort, ['start', '-w']),
    close: stopAll,
  };
}
