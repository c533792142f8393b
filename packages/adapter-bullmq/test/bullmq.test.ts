import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { JobContext, JobHandlers, Logger } from '@social-publisher/domain';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type BullmqConsumerOptions,
  createBullmqConsumer,
  createBullmqQueue,
} from '../src/index.ts';
import { redisHz } from '../src/timer-resolution.ts';
import {
  deleteKeys,
  listKeys,
  newPrefix,
  REDIS_URL,
  RUN_PREFIX,
  redisUnavailableReason,
  sleep,
  waitFor,
} from './helpers.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const unavailable = await redisUnavailableReason();
const describeRedis = unavailable ? describe.skip : describe;
const suffix = unavailable ? ` (skipped: ${unavailable})` : '';

/** Closes registered resources after each test, last first. */
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
afterAll(async () => {
  if (!unavailable) await deleteKeys(RUN_PREFIX);
});

function producer(prefix: string, connection: string = REDIS_URL) {
  const queue = createBullmqQueue({ connection, prefix, logger: quiet });
  cleanups.push(() => queue.close());
  return queue;
}

function consumer(prefix: string, extra: Partial<BullmqConsumerOptions> = {}) {
  const created = createBullmqConsumer({
    connection: REDIS_URL,
    prefix,
    concurrency: 2,
    logger: quiet,
    ...extra,
  });
  cleanups.push(() => created.close());
  return created;
}

function recordingHandlers(
  publish: (postId: string, ctx: JobContext) => Promise<void> = async () => {},
) {
  const calls: Array<{ id: string; attempt: number; at: number }> = [];
  const handlers: JobHandlers = {
    async publish(postId, ctx) {
      calls.push({ id: postId, attempt: ctx.attempt, at: Date.now() });
      await publish(postId, ctx);
      return { kind: 'done' };
    },
    async deliver() {
      return { kind: 'done' };
    },
    async unpublish() {
      return { kind: 'done' };
    },
  };
  return { calls, handlers };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A TCP proxy in front of the real Redis that the test can stop and start again. */
function redisProxy(port: number) {
  const target = new URL(REDIS_URL);
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  const url = new URL(REDIS_URL);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    async start() {
      server = createServer((client) => {
        const upstream = tcpConnect(Number(target.port || 6379), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => {});
          socket.on('close', () => {
            sockets.delete(socket);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      const listening = server;
      await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      const closing = server;
      server = undefined;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
}

async function timed<T>(
  promise: Promise<T>,
): Promise<{ ms: number; value: T | undefined; error: unknown }> {
  const started = Date.now();
  try {
    const value = await promise;
    return { ms: Date.now() - started, value, error: undefined };
  } catch (error) {
    return { ms: Date.now() - started, value: undefined, error };
  }
}

describeRedis(`bullmq adapter${suffix}`, () => {
  it('stores ids only in job data, under <prefix>:<queue>:*, and removes finished jobs', async () => {
    const prefix = newPrefix();
    const queue = producer(prefix);
    const postId = globalThis.crypto.randomUUID();
    const deliveryId = globalThis.crypto.randomUUID();
    await queue.enqueuePublish(postId, new Date(Date.now() + 60_000));
    await queue.enqueueDelivery(deliveryId, null);
    await queue.enqueueUnpublish(postId, new Date(Date.now() + 60_000));

    const redis = new Redis(REDIS_URL);
    cleanups.push(() => redis.quit());
    const publishJob = await redis.hgetall(`${prefix}:publish:${postId}`);
    expect(JSON.parse(publishJob.data ?? '{}')).toEqual({ postId, attempt: 1 });
    const deliveryJob = await redis.hgetall(`${prefix}:webhook-delivery:${deliveryId}`);
    expect(JSON.parse(deliveryJob.data ?? '{}')).toEqual({ deliveryId, attempt: 1 });
    // The unpublish job of the same post: its own queue, the post id as job id.
    const unpublishJob = await redis.hgetall(`${prefix}:unpublish:${postId}`);
    expect(JSON.parse(unpublishJob.data ?? '{}')).toEqual({ postId, attempt: 1 });
    expect(await redis.zscore(`${prefix}:publish:delayed`, postId)).not.toBeNull();
    const keys = await listKeys(prefix);
    expect(
      keys.every(
        (key) =>
          key.startsWith(`${prefix}:publish:`) ||
          key.startsWith(`${prefix}:webhook-delivery:`) ||
          key.startsWith(`${prefix}:unpublish:`),
      ),
    ).toBe(true);

    // Finished jobs leave nothing behind (so the id can be added again).
    const { calls, handlers } = recordingHandlers();
    await queue.cancelPublish(postId);
    await queue.enqueuePublish(postId, null);
    await consumer(prefix).start(handlers);
    await waitFor('the job to run', () => calls.length === 1);
    await sleep(200);
    expect(await redis.exists(`${prefix}:publish:${postId}`)).toBe(0);
  });

  it('producer pointed at a closed port rejects fast and pings false', async () => {
    const port = await freePort();
    const queue = producer(newPrefix(), `redis://127.0.0.1:${port}`);
    const [publish, delivery, cancel, ping] = await Promise.all([
      timed(queue.enqueuePublish(globalThis.crypto.randomUUID(), null)),
      timed(queue.enqueueDelivery(globalThis.crypto.randomUUID(), null)),
      timed(queue.cancelPublish('anything')),
      timed(queue.ping()),
    ]);
    for (const result of [publish, delivery, cancel]) {
      expect(result.error).toBeInstanceOf(Error);
      expect(result.ms).toBeLessThan(3_000);
    }
    expect(ping.value).toBe(false);
    expect(ping.ms).toBeLessThan(3_000);
    const closing = await timed(queue.close());
    expect(closing.error).toBeUndefined();
    expect(closing.ms).toBeLessThan(1_000);
  });

  it('producer recovers when Redis comes back, and fails fast again when it goes', async () => {
    const prefix = newPrefix();
    const proxy = redisProxy(await freePort());
    cleanups.push(() => proxy.stop());
    const queue = producer(prefix, proxy.url);

    // Down from the start.
    const down = await timed(queue.enqueuePublish(globalThis.crypto.randomUUID(), null));
    expect(down.error).toBeInstanceOf(Error);
    expect(down.ms).toBeLessThan(3_000);

    // Back: the producer reconnects on its own (retry every <= 2 s).
    await proxy.start();
    const first = globalThis.crypto.randomUUID();
    const deadline = Date.now() + 5_000;
    for (;;) {
      const attempt = await timed(queue.enqueuePublish(first, null));
      if (!attempt.error) break;
      if (Date.now() > deadline) throw attempt.error;
    }
    expect(await queue.ping()).toBe(true);

    // Down again after having been ready.
    await proxy.stop();
    const again = await timed(queue.enqueuePublish(globalThis.crypto.randomUUID(), null));
    expect(again.error).toBeInstanceOf(Error);
    expect(again.ms).toBeLessThan(3_000);
    expect(await queue.ping()).toBe(false);

    // The job added while Redis was reachable is there, and nothing else.
    const { calls, handlers } = recordingHandlers();
    await consumer(prefix).start(handlers);
    await waitFor('the one job to run', () => calls.length === 1);
    expect(calls.map((call) => call.id)).toEqual([first]);
  });

  it('a job whose worker is SIGKILLed mid-job is picked up by another consumer', async () => {
    const prefix = newPrefix();
    const queue = producer(prefix);
    const postId = globalThis.crypto.randomUUID();
    await queue.enqueuePublish(postId, null);

    const fixture = fileURLToPath(new URL('./fixtures/dying-worker.ts', import.meta.url));
    const child: ChildProcess = spawn(process.execPath, [fixture], {
      env: { ...process.env, REDIS_URL, QUEUE_PREFIX: prefix, LOCK_DURATION_MS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    await waitFor(
      `the child to take the job (stderr: ${errors})`,
      () => output.includes(`started ${postId} 1`),
      10_000,
    );
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const killedAt = Date.now();

    const { calls, handlers } = recordingHandlers();
    await consumer(prefix, { lockDurationMs: 1_000, stalledIntervalMs: 500 }).start(handlers);
    await waitFor('another consumer to run the stalled job', () => calls.length === 1, 10_000);
    expect(calls[0]).toMatchObject({ id: postId, attempt: 1 });
    expect(calls[0]?.at ?? 0).toBeGreaterThanOrEqual(killedAt);
    expect((calls[0]?.at ?? 0) - killedAt).toBeLessThan(5_000);
    await sleep(300);
    expect(calls).toHaveLength(1);
  });

  it('close() aborts a handler after the grace period; a retry result hands the job back', async () => {
    const prefix = newPrefix();
    const queue = producer(prefix);
    const postId = globalThis.crypto.randomUUID();
    await queue.enqueuePublish(postId, null);

    const seen: Array<{ attempt: number; aborted: boolean }> = [];
    const first = consumer(prefix, { shutdownGraceMs: 200 });
    await first.start({
      async publish(_id, ctx) {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        seen.push({ attempt: ctx.attempt, aborted: ctx.signal.aborted });
        return { kind: 'retry', delayMs: 0, reason: 'shutting down' };
      },
      async deliver() {
        return { kind: 'done' };
      },
      async unpublish() {
        return { kind: 'done' };
      },
    });
    await sleep(200);
    const closed = await timed(first.close());
    expect(closed.error).toBeUndefined();
    expect(closed.ms).toBeGreaterThanOrEqual(150);
    expect(seen).toEqual([{ attempt: 1, aborted: true }]);

    const { calls, handlers } = recordingHandlers();
    await consumer(prefix).start(handlers);
    await waitFor('the handed-back job to run', () => calls.length === 1);
    expect(calls[0]).toMatchObject({ id: postId, attempt: 2 });
  });

  it("a consumer's start says whether this Redis checks its timeouts often enough (hz)", async () => {
    const probe = new Redis(REDIS_URL);
    cleanups.push(() => probe.quit());
    const hz = Number(redisHz(await probe.info('server')));
    const warnings: string[] = [];
    const started = consumer(newPrefix(), {
      logger: { ...quiet, warn: (_obj, msg) => warnings.push(msg ?? '') },
    });
    await started.start(recordingHandlers().handlers);
    const said = () => warnings.filter((msg) => msg.startsWith('Redis runs at hz'));
    // Said in the background once the workers are ready.
    if (hz < 50) await waitFor('the hz warning', () => said().length > 0);
    else await sleep(300);
    expect(said()).toEqual(
      hz < 50 ? [expect.stringContaining(`Redis runs at hz ${hz}: a scheduled post`)] : [],
    );
  });

  it('two consumers share the jobs: each job runs exactly once', async () => {
    const prefix = newPrefix();
    const queue = producer(prefix);
    const ids = Array.from({ length: 12 }, () => globalThis.crypto.randomUUID());
    const a = recordingHandlers(() => sleep(50));
    const b = recordingHandlers(() => sleep(50));
    await consumer(prefix).start(a.handlers);
    await consumer(prefix).start(b.handlers);
    await Promise.all(ids.map((id) => queue.enqueuePublish(id, null)));
    await waitFor('every job to run', () => a.calls.length + b.calls.length >= ids.length);
    await sleep(300);
    const all = [...a.calls, ...b.calls].map((call) => call.id).sort();
    expect(all).toEqual([...ids].sort());
    expect(a.calls.length).toBeGreaterThan(0);
    expect(b.calls.length).toBeGreaterThan(0);
  });
});
