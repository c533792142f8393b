/**
 * `pnpm start:worker` (src/main.ts) as child processes: start-up failures give one clear line
 * and exit 1 (also through the supervisor: the default WORKER_PROCESSES is the cores); a worker
 * killed with SIGKILL mid-publish is taken over by another; SIGTERM stops one gracefully;
 * WORKER_PROCESSES=2 runs two supervised workers, starts a killed one again and stops both. The runtime and the worker loop themselves are tested in packages/runtime,
 * whose test harness these tests share.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPost } from '@social-publisher/domain';
import { createRuntime } from '@social-publisher/runtime';
import { afterAll, describe, expect, it } from 'vitest';
import {
  closedPort,
  ENCRYPTION_KEY,
  loadPost,
  seedAccount,
  testConfig,
  testLogger,
  waitFor,
  waitForStatus,
} from '../../runtime/test/harness.ts';
import { deleteKeys, REDIS_URL, redisUnavailable, uniquePrefix } from '../../runtime/test/redis.ts';
import { tiktokInits, VIDEO_URL } from '../../runtime/test/scenarios.ts';
import { createTestDatabase, startFakeTiktok } from '../../testkit/src/index.ts';
import { spawnWorker } from './child.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

function runMain(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.concurrent('pnpm start:worker (main.ts)', () => {
  it('without DATABASE_URL and REDIS_URL: one clear line, exit 1', async () => {
    const { code, stderr } = await runMain({});
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'start:worker is the production worker and needs DATABASE_URL and REDIS_URL (for one process with API and worker, use pnpm start)',
    ]);
  });

  it('the database unreachable: start-up stops with one line naming it, exit 1', async () => {
    const { code, stderr } = await runMain({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/nope`,
      // Not waited for (the default waits 30 s for a database starting alongside).
      DATABASE_STARTUP_WAIT_MS: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      ENCRYPTION_KEY,
    });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cannot start: PostgreSQL \(DATABASE_URL\): .*ECONNREFUSED/);
  });
});

const database = await createTestDatabase();
const skipReason = database.skipReason ?? (await redisUnavailable());
const log = testLogger('main');

describe.skipIf(skipReason)(
  `pnpm start:worker on PostgreSQL + Redis${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    afterAll(() => database.drop());

    it('a worker killed with SIGKILL mid-publish: another worker finishes it, one publish per target', async () => {
      // Its own database and prefix: no other worker may touch this post before the kill.
      const killPrefix = uniquePrefix('sigkill');
      const tiktok = await startFakeTiktok();
      const env = {
        DATABASE_URL: database.url ?? '',
        REDIS_URL,
        QUEUE_PREFIX: killPrefix,
        TIKTOK_API_BASE_URL: tiktok.baseUrl,
        TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
        TIKTOK_RATE_LIMIT: 'off',
      };
      const killConfig = testConfig(env);
      const producer = await createRuntime(killConfig, log.logger, { role: 'api' });
      const first = spawnWorker('first', env);
      let second: ReturnType<typeof spawnWorker> | undefined;
      try {
        const seeded = await seedAccount(producer.deps, ['tiktok']);
        await first.started;

        // TikTok keeps the publish "processing" until told otherwise: the worker sits polling.
        tiktok.script({ processingPolls: 100_000 });
        const content = `sigkill ${Date.now()}`;
        const created = await createPost(
          producer.deps,
          seeded.ctx,
          { content, platforms: ['tiktok'], media_urls: [VIDEO_URL] },
          'now',
        );
        if (!created.ok) throw new Error(JSON.stringify(created.error));
        const postId = created.value.id;
        const publish = await waitFor('the first worker to be polling TikTok', () => {
          const init = tiktokInits(tiktok, content)[0];
          return init && init.statusFetches >= 2 ? init : undefined;
        });

        const mid = await loadPost(producer.deps.repos, postId);
        expect(mid.status).toBe('publishing');
        expect(mid.targets[0]?.status).toBe('publishing');
        expect(mid.targets[0]?.resumeState).toMatchObject({ publishId: publish.publishId });

        first.process.kill('SIGKILL');
        expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
        publish.pollsLeft = 0; // TikTok finishes processing: the next status fetch says PUBLISH_COMPLETE

        second = spawnWorker('second', env);
        await second.started;
        const done = await waitForStatus(producer.deps.repos, postId, 'published', 15_000);
        const target = done.targets[0];
        expect(target?.status).toBe('published');
        expect(target?.platformPostId).toBe(publish.postId);
        // One init (publish) per target: the second worker resumed the stored publish_id.
        expect(tiktokInits(tiktok, content)).toHaveLength(1);
        expect(target?.attempts).toBe(2);

        // Graceful shutdown of the survivor: SIGTERM, exit 0.
        second.process.kill('SIGTERM');
        expect(await second.exited).toMatchObject({ code: 0 });
        expect(second.messages()).toContain('worker stopped');
      } finally {
        first.process.kill('SIGKILL');
        second?.process.kill('SIGKILL');
        await producer.close();
        await tiktok.close();
        await deleteKeys(killPrefix);
      }
    }, 40_000);

    it('WORKER_PROCESSES=2: two workers publish, a killed one is started again, SIGTERM stops all', async () => {
      const prefix = uniquePrefix('supervised');
      const tiktok = await startFakeTiktok();
      const env = {
        DATABASE_URL: database.url ?? '',
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        TIKTOK_API_BASE_URL: tiktok.baseUrl,
        TIKTOK_TOKEN_BASE_URL: tiktok.baseUrl,
        TIKTOK_RATE_LIMIT: 'off',
        WORKER_PROCESSES: '2',
      };
      const producer = await createRuntime(testConfig(env), log.logger, { role: 'api' });
      const supervisor = spawnWorker('supervisor', env);
      const startedPids = () =>
        supervisor
          .logs()
          .filter((entry) => entry.msg === 'worker started')
          .map((entry) => entry.pid);
      try {
        const seeded = await seedAccount(producer.deps, ['tiktok']);
        await waitFor('two workers to start', () => startedPids().length >= 2 || undefined);
        const [firstPid, secondPid] = startedPids();
        expect(firstPid).not.toBe(secondPid);
        expect(firstPid).not.toBe(supervisor.process.pid);
        await waitFor(
          'the supervisor to report',
          () => supervisor.messages().includes('supervising worker processes') || undefined,
        );

        const publishAll = async (label: string) => {
          const ids: string[] = [];
          for (let index = 0; index < 6; index++) {
            const created = await createPost(
              producer.deps,
              seeded.ctx,
              { content: `${label} ${index}`, platforms: ['tiktok'], media_urls: [VIDEO_URL] },
              'now',
            );
            if (!created.ok) throw new Error(JSON.stringify(created.error));
            ids.push(created.value.id);
          }
          for (const id of ids) await waitForStatus(producer.deps.repos, id, 'published', 20_000);
        };
        await publishAll('supervised');

        process.kill(Number(firstPid), 'SIGKILL');
        await waitFor(
          'a third worker to start',
          () => startedPids().length >= 3 || undefined,
          15_000,
        );
        expect(startedPids()[2]).not.toBe(firstPid);
        expect(supervisor.messages()).toContain('worker process died: starting another');
        await publishAll('after the restart');

        supervisor.process.kill('SIGTERM');
        expect(await supervisor.exited).toMatchObject({ code: 0 });
        expect(supervisor.messages().filter((msg) => msg === 'worker stopped')).toHaveLength(2);
      } finally {
        supervisor.process.kill('SIGKILL');
        for (const pid of startedPids()) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await producer.close();
        await tiktok.close();
        await deleteKeys(prefix);
      }
    }, 60_000);
  },
);
