/**
 * The service as an operator runs it, for the fault suite: one API process (`start:api`) and
 * worker processes (`start:worker`) on PostgreSQL + BullMQ, started from the real entry points
 * with environment variables only. The fake TikTok, Instagram and X sit behind latency proxies
 * (0..latencyMs per request); media come from the testkit media server; webhooks go to a local
 * receiver that can be taken down. Workers, and the API, can be SIGKILLed and restarted at will.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type FakeInstagram,
  type FakeTiktok,
  type FakeX,
  freePort,
  type MediaServer,
  startFakeInstagram,
  startFakeTiktok,
  startFakeX,
  startMediaServer,
} from '@social-publisher/testkit';
import { type LatencyProxy, startLatencyProxy } from './latency-proxy.ts';
import { type Receiver, startReceiver } from './receiver.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const API_MAIN = join(ROOT, 'packages/app-http/src/main.ts');
const WORKER_MAIN = join(ROOT, 'packages/app-worker/src/main.ts');

export interface ClusterOptions {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  workers: number;
  latencyMs: number;
  /** Extra environment for every process. */
  env?: Record<string, string>;
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
}

export interface Cluster {
  tiktok: FakeTiktok;
  instagram: FakeInstagram;
  x: FakeX;
  media: MediaServer;
  receiver: Receiver;
  /** A request to the API with the run's key (network errors answer status 0). */
  call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer<T>>;
  /** Kills one worker with SIGKILL (no shutdown at all) and starts a new one in its place. */
  killAndRestartWorker(): Promise<void>;
  /** Kills the API with SIGKILL mid-whatever and starts it again; resolves once it answers. */
  killAndRestartApi(): Promise<void>;
  /** Worker kills. */
  readonly kills: number;
  readonly apiKills: number;
  /** Lines logged at error level or above by any process. */
  errorLines(): string[];
  /** The API's origin (`http://127.0.0.1:<port>`) and the run's API key, for load generators. */
  origin: string;
  key: string;
  /** The running processes' ids: the API and each worker (RSS, CPU of each). */
  pids(): { api: number[]; workers: number[] };
  close(): Promise<void>;
}

/** Fast enough to finish a storm in seconds: what an operator tunes for quick recovery. */
const TIMINGS = {
  PLATFORM_POLL_INTERVAL_MS: '200',
  RECONCILE_INTERVAL_MS: '1000',
  TARGET_LEASE_MS: '5000',
  QUEUE_STALLED_INTERVAL_MS: '2000',
  QUEUE_LOCK_DURATION_MS: '4000',
  RATE_LIMIT_MAX: '1000000',
  // The storm's posts all go to one account per platform: paced (the pacer stays in the path)
  // at a scaled-up limit, since the fakes here enforce none and TikTok's 6 per minute would
  // leave most posts waiting past the storm's end.
  TIKTOK_RATE_LIMIT: '100/1s',
  INSTAGRAM_RATE_LIMIT: '100/1s',
  X_RATE_LIMIT: '100/1s',
  LOG_LEVEL: 'warn',
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const logDir = mkdtempSync(join(tmpdir(), 'sp-chaos-'));
  const cleanups: Array<() => Promise<void> | void> = [
    () => rmSync(logDir, { recursive: true, force: true }),
  ];
  const errors: string[] = [];
  const children = new Set<ChildProcess>();
  let kills = 0;
  let apiKills = 0;
  let spawned = 0;

  const close = async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };

  try {
    const [tiktok, instagram, x, media, receiver] = await Promise.all([
      startFakeTiktok({ processingPolls: 1 }),
      startFakeInstagram({ videoProcessingPolls: 1 }),
      startFakeX(),
      startMediaServer(),
      startReceiver(),
    ]);
    cleanups.push(
      () => tiktok.close(),
      () => instagram.close(),
      () => x.close(),
      () => media.close(),
      () => receiver.close(),
    );
    const proxies: LatencyProxy[] = await Promise.all([
      startLatencyProxy(tiktok.baseUrl, options.latencyMs),
      startLatencyProxy(instagram.baseUrl, options.latencyMs),
      startLatencyProxy(x.baseUrl, options.latencyMs),
    ]);
    for (const proxy of proxies) cleanups.push(() => proxy.close());
    const [tiktokUrl, instagramUrl, xUrl] = proxies.map((proxy) => proxy.baseUrl);

    const port = await freePort();
    const bootstrapKey = `sp_${randomBytes(20).toString('hex')}`;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...TIMINGS,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      QUEUE_PREFIX: options.queuePrefix,
      // One worker per process: the kill storm kills worker processes, not supervisors.
      WORKER_PROCESSES: '1',
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BOOTSTRAP_API_KEY: bootstrapKey,
      TIKTOK_API_BASE_URL: tiktokUrl ?? '',
      TIKTOK_TOKEN_BASE_URL: tiktokUrl ?? '',
      INSTAGRAM_API_BASE_URL: instagramUrl ?? '',
      X_API_BASE_URL: xUrl ?? '',
      MEDIA_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ...options.env,
    };

    const launch = (name: string, args: string[]): ChildProcess => {
      spawned += 1;
      const log = createWriteStream(join(logDir, `${name}-${spawned}.log`));
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      child.on('exit', () => children.delete(child));
      let partial = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        const text = partial + chunk.toString('utf8');
        const lines = text.split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          if (/"level":(5|6)0/.test(line)) errors.push(`[${name}] ${line}`);
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        log.write(chunk);
        errors.push(`[${name} stderr] ${chunk.toString('utf8').trim()}`);
      });
      return child;
    };

    const baseUrl = `http://127.0.0.1:${port}`;
    const startApi = async (): Promise<ChildProcess> => {
      const started = launch('api', [API_MAIN, '--api-only']);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ok = await fetch(`${baseUrl}/health`).then(
          (response) => response.status === 200,
          () => false,
        );
        if (ok) return started;
        if (Date.now() > deadline) throw new Error(`the API did not start: ${errors.join('\n')}`);
        await sleep(100);
      }
    };
    let api = await startApi();
    const workers: ChildProcess[] = [];
    for (let i = 0; i < options.workers; i++) workers.push(launch('worker', [WORKER_MAIN]));

    const call = async <T>(
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<Answer<T>> => {
      try {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${bootstrapKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T };
      } catch {
        return { status: 0, body: null as T };
      }
    };

    return {
      tiktok,
      instagram,
      x,
      media,
      receiver,
      call,
      origin: baseUrl,
      key: bootstrapKey,
      get kills() {
        return kills;
      },
      get apiKills() {
        return apiKills;
      },
      async killAndRestartWorker() {
        const index = Math.floor(Math.random() * workers.length);
        const victim = workers[index];
        if (!victim) return;
        const gone = new Promise<void>((resolve) => victim.once('exit', () => resolve()));
        victim.kill('SIGKILL');
        kills += 1;
        await gone;
        workers[index] = launch('worker', [WORKER_MAIN]);
      },
      async killAndRestartApi() {
        const victim = api;
        const gone = new Promise<void>((resolve) => victim.once('exit', () => resolve()));
        victim.kill('SIGKILL');
        apiKills += 1;
        await gone;
        api = await startApi();
      },
      errorLines: () => [...errors],
      pids: () => ({
        api: api.pid === undefined ? [] : [api.pid],
        workers: workers.flatMap((worker) => (worker.pid === undefined ? [] : [worker.pid])),
      }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
