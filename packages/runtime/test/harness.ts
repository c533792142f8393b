/**
 * Shared pieces of the runtime's integration tests (and of app-worker's process tests): config
 * from a plain env map, a pino logger that keeps its lines, account seeding through the domain
 * use cases, polling helpers.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Config } from '@social-publisher/config';
import type {
  AccountContext,
  Actor,
  CoreDeps,
  Platform,
  PostWithTargets,
  Repositories,
} from '@social-publisher/domain';
import { seedUserWithConnections } from '@social-publisher/domain/testing';
import { loadRuntimeConfig } from '@social-publisher/runtime';
import pino from 'pino';

/** The same key for every runtime of a test file: connections stay readable across restarts. */
export const ENCRYPTION_KEY = randomBytes(32).toString('base64');

/** Short timings so the scenarios run in seconds. */
export const FAST_TIMINGS = {
  PLATFORM_POLL_INTERVAL_MS: '50',
  TARGET_LEASE_MS: '1000',
  RECONCILE_INTERVAL_MS: '300',
  WORKER_CONCURRENCY: '4',
  QUEUE_STALLED_INTERVAL_MS: '500',
  QUEUE_LOCK_DURATION_MS: '1000',
} as const;

export function testConfig(env: Record<string, string | undefined>): Config {
  return loadRuntimeConfig({ LOG_LEVEL: 'info', ENCRYPTION_KEY, ...FAST_TIMINGS, ...env });
}

export interface TestLogger {
  logger: pino.Logger;
  /** Parsed JSON lines logged so far. */
  lines: Array<Record<string, unknown>>;
  messages(level?: 'warn' | 'error'): string[];
}

/** A pino logger writing into memory (and to stderr when TEST_LOGS is set). */
export function testLogger(name: string): TestLogger {
  const lines: Array<Record<string, unknown>> = [];
  const echo = process.env.TEST_LOGS !== undefined;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString('utf8');
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        lines.push(JSON.parse(line) as Record<string, unknown>);
        if (echo) process.stderr.write(`[${name}] ${line}\n`);
      }
      done();
    },
  });
  const logger = pino({ level: 'debug', base: { test: name } }, sink);
  const LEVELS = { warn: 40, error: 50 } as const;
  return {
    logger,
    lines,
    messages: (level) =>
      lines
        .filter((line) => level === undefined || line.level === LEVELS[level])
        .map((line) => String(line.msg)),
  };
}

export interface Seeded {
  ctx: AccountContext;
  actor: Actor;
  connections: Partial<Record<Platform, string>>;
}

/** Platforms without a real publisher yet: their connections here are sandbox ones. */
const SANDBOXED: Platform[] = ['twitter', 'linkedin', 'facebook'];

/** A user (createUser) with one connection per platform (connectSocialAccount). */
export async function seedAccount(deps: CoreDeps, platforms: Platform[]): Promise<Seeded> {
  const email = `${randomBytes(6).toString('hex')}@worker.test`;
  const { ctx, actor, connections } = await seedUserWithConnections(deps, platforms, email, {
    sandbox: platforms.filter((platform) => SANDBOXED.includes(platform)),
  });
  return { ctx, actor, connections };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export async function loadPost(repos: Repositories, id: string): Promise<PostWithTargets> {
  const post = await repos.posts.findById(id);
  if (!post) throw new Error(`post ${id} not found`);
  return post;
}

/** Waits until the post reaches `status` (default published). */
export function waitForStatus(
  repos: Repositories,
  id: string,
  status: PostWithTargets['status'] = 'published',
  timeoutMs = 10_000,
): Promise<PostWithTargets> {
  return waitFor(
    `post ${id} to be ${status}`,
    async () => {
      const post = await loadPost(repos, id);
      return post.status === status ? post : undefined;
    },
    timeoutMs,
  );
}

/** A TCP port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
