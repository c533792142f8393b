/**
 * `node packages/app-worker/src/main.ts` as a child process (what `pnpm start:worker` runs),
 * with the fast test timings and the given environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ENCRYPTION_KEY, FAST_TIMINGS } from '../../runtime/test/harness.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export interface ChildWorker {
  process: ChildProcess;
  /** Resolves once the worker logged `worker started`; rejects if it exits first. */
  started: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The `msg` of every JSON log line so far. */
  messages(): string[];
  /** Every JSON log line so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** stdout and stderr so far (for failure messages). */
  output(): string;
}

export function spawnWorker(name: string, env: Record<string, string>): ChildWorker {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...FAST_TIMINGS,
      ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      WORKER_PROCESSES: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const messages: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  let pending = '';
  const echo = process.env.TEST_LOGS !== undefined;
  let markStarted: () => void = () => {};
  let failStart: (error: Error) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    markStarted = resolve;
    failStart = reject;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (echo) process.stderr.write(`[child ${name}] ${line}\n`);
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        const msg = String(entry.msg);
        logs.push(entry);
        messages.push(msg);
        if (msg === 'worker started') markStarted();
      } catch {
        // not a log line
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (echo) process.stderr.write(`[child ${name} stderr] ${chunk.toString('utf8')}`);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      failStart(
        new Error(`worker ${name} exited before it started (${code ?? signal}):\n${output}`),
      );
      resolve({ code, signal });
    });
  });
  started.catch(() => {});
  return {
    process: child,
    started,
    exited,
    messages: () => [...messages],
    logs: () => [...logs],
    output: () => output,
  };
}
