/** The real entry points as processes: pnpm start (embedded), the CLI, and config errors. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const CLI = new URL('../src/cli.ts', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'sp-app-http-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A clean environment: only what the test sets (no DATABASE_URL / REDIS_URL from the host). */
const env = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  ...extra,
});

function run(
  args: string[],
  extra: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Collects a child's stdout; `waitFor` resolves once the collected text matches. */
function watch(child: ChildProcess) {
  const output = { text: '', exited: false };
  child.stdout?.on('data', (chunk) => {
    output.text += chunk;
  });
  child.on('exit', () => {
    output.exited = true;
  });
  const waitFor = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const match = output.text.match(pattern);
      if (match) return match;
      if (output.exited || Date.now() > deadline) {
        throw new Error(`no ${pattern} in: ${output.text}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { output, waitFor };
}

describe('processes', { timeout: 90_000 }, () => {
  it('a bad config value stops the process with one line naming the variable', async () => {
    const result = await run([MAIN], { PORT: 'abc' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'invalid configuration: PORT must be a whole number, got "abc"',
    ]);
  });

  it('start:api refuses the embedded database and an in-process queue, naming what is missing', async () => {
    const bare = await run([MAIN, '--api-only'], {});
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/needs DATABASE_URL and REDIS_URL \(shared with the workers\)/);
    const noQueue = await run([MAIN, '--api-only'], {
      DATABASE_URL: 'postgres://127.0.0.1:9/none',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    });
    expect(noQueue.code).toBe(1);
    expect(noQueue.stderr.trim().split('\n')).toEqual([
      'start:api is the production API and needs REDIS_URL (shared with the workers); for one process with API and worker, use pnpm start',
    ]);
  });

  it('pnpm start: first user and key printed once, API and worker up, SIGTERM exits 0', async () => {
    const child = spawn(process.execPath, [MAIN], { env: env({ PORT: '0', HOST: '127.0.0.1' }) });
    const { output, waitFor } = watch(child);
    const [, key] = await waitFor(/Bearer (sp_[A-Za-z0-9]{40})/);
    const [, base] = await waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    const response = await fetch(`${base}/posts`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    await waitFor(/"request_id":"[^"]+","method":"GET","url":"\/posts","status":200/);
    expect(output.text).not.toContain(`"${key}"`);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('SIGTERM to the pnpm process of `pnpm start` stops node gracefully (pnpm 10 does not relay it)', async () => {
    const root = new URL('../../../', import.meta.url).pathname;
    const pnpm = spawn('pnpm', ['start'], {
      cwd: root,
      env: env({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dataDir, 'launcher') }),
    });
    const { output, waitFor } = watch(pnpm);
    const [, pid] = await waitFor(/"pid":(\d+).*"msg":"listening"/);
    const node = Number(pid);
    expect(node).not.toBe(pnpm.pid);
    pnpm.kill('SIGTERM');
    const alive = () => {
      try {
        process.kill(node, 0);
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 10_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(node, 'SIGKILL');
    expect(alive()).toBe(false);
    expect(output.text).toMatch(/the script runner that launched this process is gone/);
  });

  it('pnpm cli users create prints { user_id, api_key } as JSON; usage errors exit 2', async () => {
    const created = await run([CLI, 'users', 'create', '--email', 'cli@example.com'], {});
    expect(created.code).toBe(0);
    const json = JSON.parse(created.stdout);
    expect(Object.keys(json)).toEqual(['user_id', 'api_key']);
    expect(json.api_key).toMatch(/^sp_[A-Za-z0-9]{40}$/);
    const duplicate = await run([CLI, 'users', 'create', '--email', 'cli@example.com'], {});
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const usage = await run([CLI, 'users', 'frobnicate'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/usage: pnpm cli/);
  });
});
