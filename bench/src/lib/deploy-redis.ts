/**
 * A redis-server of its own, run with the `hz` our deployment files give Redis (compose.yaml),
 * so a figure that depends on it (a delayed job's lateness: Redis checks its timers hz times a
 * second) is measured as deployed, not against whatever Redis the machine happens to run.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort, waitForPort } from '@social-publisher/testkit';

const COMPOSE_FILE = new URL('../../../compose.yaml', import.meta.url);

/** The `--hz` compose.yaml passes to redis-server. */
export function deployedRedisHz(text = readFileSync(COMPOSE_FILE, 'utf8')): number {
  const match = /"--hz",\s*"(\d+)"/.exec(text);
  if (!match) throw new Error('compose.yaml sets no --hz for redis-server');
  return Number(match[1]);
}

export interface DeployRedis {
  url: string;
  hz: number;
  close(): Promise<void>;
}

/** Starts redis-server on a free port with the deployed hz (no persistence: a bench's keys are throw-away). */
export async function startDeployRedis(): Promise<DeployRedis> {
  const hz = deployedRedisHz();
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--hz',
      String(hz),
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    hz,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
