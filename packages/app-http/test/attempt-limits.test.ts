/**
 * Attempts that could be guesses get a budget per client address and per kind: failed
 * API-key/JWT authentications, OAuth callbacks, wrong METRICS_TOKEN and wrong ADMIN_TOKEN
 * attempts. Spending one never spends another. Embedded mode counts in memory; production mode
 * in Redis, shared by every API process (the dashboard exists in production mode only).
 */
import { createBullmqQueue } from '@social-publisher/adapter-bullmq';
import { connectRateLimitRedis } from '@social-publisher/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import type { AppOptions } from '../src/app.ts';
import { deleteKeys, REDIS_URL, redisUnavailable } from './e2e/system.ts';
import { createHarness, expectError, type Harness } from './support.ts';

const METRICS_TOKEN = 'metrics-token-of-the-attempts-test';
const ADMIN_TOKEN = 'admin-token-of-the-attempts-test';
const BUDGET = 5;
const metrics = {
  httpRequest() {},
  render: async () => 'sp_up 1\n',
  contentType: 'text/plain; version=0.0.4',
};

let addresses = 0;
/** A fresh client address for each test, so budgets never carry over between tests. */
const freshAddress = () => `198.51.100.${++addresses}`;

const redisSkip = await redisUnavailable();
const modes = [
  { mode: 'embedded', skip: undefined, label: 'embedded' },
  {
    mode: 'production',
    skip: redisSkip,
    label: redisSkip ? `production (skipped: ${redisSkip})` : 'production',
  },
] as const;

describe.each(modes)('attempt budgets, $label mode', ({ mode, skip }) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  const prefix = `sp-test-attempts-${process.pid}-${Date.now()}`;

  /** An API process as this mode builds it; production ones share one Redis. */
  async function start(): Promise<Harness> {
    const options: Partial<AppOptions> = { metrics, metricsToken: METRICS_TOKEN };
    if (mode === 'production') {
      const queue = createBullmqQueue({ connection: REDIS_URL, prefix });
      cleanups.push(() => queue.close());
      options.rateLimitRedis = await connectRateLimitRedis(REDIS_URL);
      options.adminQueues = { dashboard: queue.dashboard, token: ADMIN_TOKEN, writable: false };
    }
    const h = await createHarness({
      ...options,
      config: {
        queuePrefix: prefix,
        attemptLimits: { authFailures: BUDGET, oauthCallbacks: BUDGET, tokenFailures: BUDGET },
      },
    });
    cleanups.push(() => h.close());
    return h;
  }

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    // The queue's and the limiter's keys (BullMQ leaves its `meta` keys behind a close).
    if (mode === 'production' && !skip) await deleteKeys(prefix);
  });

  /** What each kind of attempt answers from `address`. */
  const attempt = {
    auth: (h: Harness, address: string) =>
      h.call({
        method: 'GET',
        url: '/posts',
        remoteAddress: address,
        headers: { authorization: 'Bearer sp_not-a-key' },
      }),
    callback: (h: Harness, address: string) =>
      h.call({
        method: 'GET',
        url: '/oauth/callback/tiktok?state=x&code=y',
        remoteAddress: address,
      }),
    metrics: (h: Harness, address: string, token = 'wrong-metrics-token') =>
      h.call({
        method: 'GET',
        url: '/metrics',
        remoteAddress: address,
        headers: { authorization: `Bearer ${token}` },
      }),
    admin: (h: Harness, address: string, token = 'wrong-admin-token') =>
      h.call({
        method: 'GET',
        url: '/admin/queues/api/queues',
        remoteAddress: address,
        headers: { authorization: `Bearer ${token}` },
      }),
  };
  type Kind = keyof typeof attempt;
  const kinds = (Object.keys(attempt) as Kind[]).filter(
    (kind) => kind !== 'admin' || mode === 'production',
  );

  it.skipIf(skip)(
    'each kind has its own budget: spending one leaves the others whole',
    async () => {
      const h = await start();
      const address = freshAddress();
      const used = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<Kind, number>;
      const tryOnce = async (kind: Kind) => {
        used[kind] += 1;
        return attempt[kind](h, address);
      };
      for (const spent of kinds) {
        while (used[spent] < BUDGET) {
          expect((await tryOnce(spent)).statusCode, spent).not.toBe(429);
        }
        const limited = await tryOnce(spent);
        expectError(limited, 429, 'rate_limited');
        expect(Number(limited.headers['retry-after']), spent).toBeGreaterThan(0);
        // Every kind not yet spent still answers as usual (401, or the callback's own answer).
        for (const other of kinds.slice(kinds.indexOf(spent) + 1)) {
          expect((await tryOnce(other)).statusCode, `${other} after ${spent}`).not.toBe(429);
        }
      }
      // A valid credential is still served from that address (keys cannot be guessed).
      expect(
        (
          await h.call({
            method: 'GET',
            url: '/posts',
            remoteAddress: address,
            headers: h.as(h.alice),
          })
        ).statusCode,
      ).toBe(200);
    },
  );

  it.skipIf(skip)(
    'a spent token budget refuses the right token too, from that address only',
    async () => {
      const h = await start();
      const address = freshAddress();
      for (let i = 0; i < BUDGET; i++) expectError(await attempt.metrics(h, address), 401);
      expectError(await attempt.metrics(h, address, METRICS_TOKEN), 429, 'rate_limited');
      expect((await attempt.metrics(h, freshAddress(), METRICS_TOKEN)).statusCode).toBe(200);
      if (mode === 'production') {
        for (let i = 0; i < BUDGET; i++) expectError(await attempt.admin(h, address), 401);
        expectError(await attempt.admin(h, address, ADMIN_TOKEN), 429, 'rate_limited');
        expect((await attempt.admin(h, freshAddress(), ADMIN_TOKEN)).statusCode).toBe(200);
      }
    },
  );

  // Only production runs several API processes; the embedded mode has one.
  if (mode === 'production') {
    it.skipIf(skip)('every API process counts into the same budget', async () => {
      const [one, two] = [await start(), await start()];
      const address = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < BUDGET; i++) {
        statuses.push((await attempt.metrics(i % 2 === 0 ? one : two, address)).statusCode);
      }
      expect(statuses).toEqual(Array(BUDGET).fill(401));
      expectError(await attempt.metrics(two, address, METRICS_TOKEN), 429, 'rate_limited');
    });
  }
});
