/**
 * A throw-away Redis master + replica watched by one Sentinel, all on 127.0.0.1 (redis-server),
 * for the tests that prove the queue rides out a failover. `failover()` asks the sentinel to
 * promote the replica and waits until it names the new master.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './net.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RedisSentinelSet {
  /** The sentinel to give ioredis, and the master name it monitors. */
  sentinels: Array<{ host: string; port: number }>;
  master: string;
  /** The port of the current master, as the sentinel says. */
  masterPort(): Promise<number>;
  /** SENTINEL FAILOVER, then waits until the sentinel names the other node. */
  failover(): Promise<void>;
  close(): Promise<void>;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const cli = async (port: number, ...args: string[]) =>
  (await run('redis-cli', ['-p', String(port), ...args])).stdout.trim();

export async function startRedisSentinel(master = 'mymaster'): Promise<RedisSentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-redis-sentinel-'));
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const child of children) child.kill('SIGKILL');
    await sleep(50);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [primary, replica, sentinel] = [await freePort(), await freePort(), await freePort()];
    const node = (port: number, extra: string[] = []) =>
      spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          // Replication writes an RDB file: into the temporary directory, not the caller's.
          '--dir',
          dir,
          ...extra,
        ],
        { stdio: 'ignore' },
      );
    children.push(node(primary));
    children.push(node(replica, ['--replicaof', '127.0.0.1', String(primary)]));
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinel}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${master} 127.0.0.1 ${primary} 1`,
        `sentinel down-after-milliseconds ${master} 1000`,
        `sentinel failover-timeout ${master} 5000`,
        `sentinel parallel-syncs ${master} 1`,
        '',
      ].join('\n'),
    );
    children.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
    for (const port of [primary, replica, sentinel]) {
      await waitForPort(port);
    }
    await until('the replica in sync', async () =>
      /master_link_status:up/.test(await cli(replica, 'info', 'replication')),
    );
    await until('the sentinel to know the replica', async () =>
      (await cli(sentinel, 'sentinel', 'replicas', master)).includes(String(replica)),
    );
    const masterPort = async () =>
      Number((await cli(sentinel, 'sentinel', 'get-master-addr-by-name', master)).split('\n')[1]);
    return {
      sentinels: [{ host: '127.0.0.1', port: sentinel }],
      master,
      masterPort,
      async failover() {
        const before = await masterPort();
        await cli(sentinel, 'sentinel', 'failover', master);
        await until('the new master', async () => (await masterPort()) !== before);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
