/**
 * A throw-away 3-node Redis Cluster on 127.0.0.1 (redis-server with cluster-enabled, joined
 * with `redis-cli --cluster create`), for the tests that prove the queue works on a cluster.
 * The nodes live in a temporary directory; close() stops them and removes it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitForPort } from './net.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RedisCluster {
  nodes: Array<{ host: string; port: number }>;
  close(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sp-redis-cluster-'));
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const child of children) child.kill('SIGKILL');
    await sleep(50);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    for (const port of ports) {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'];
      args.push('--cluster-config-file', join(dir, `nodes-${port}.conf`), '--dir', dir);
      args.push('--save', '', '--appendonly', 'no');
      children.push(spawn('redis-server', args, { stdio: 'ignore' }));
    }
    for (const port of ports) await waitForPort(port);
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes,
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const deadline = Date.now() + 20_000;
    for (const port of ports) {
      for (;;) {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
        if (/cluster_state:ok/.test(stdout)) break;
        if (Date.now() > deadline) throw new Error('the Redis Cluster did not come up');
        await sleep(100);
      }
    }
    return { nodes: ports.map((port) => ({ host: '127.0.0.1', port })), close };
  } catch (error) {
    await close();
    throw error;
  }
}
