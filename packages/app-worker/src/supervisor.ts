/**
 * WORKER_PROCESSES > 1: this process runs no jobs. It starts that many worker processes (this
 * same script with WORKER_PROCESSES=1): the first alone, so a start-up failure (database
 * unreachable, bad setting) stops everything with that worker's one line and exit 1; then the
 * others. A worker that dies later is started again, after a pause that grows while workers
 * keep dying young. SIGTERM/SIGINT is passed on to every worker (each finishes its jobs in
 * flight); the supervisor exits when all have stopped. With METRICS_PORT set, worker i serves
 * its metrics on METRICS_PORT + i (one scrape target per process).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { doublingDelay } from '@social-publisher/runtime';
import type { Logger } from 'pino';

export interface SupervisorOptions {
  processes: number;
  /** The worker script and its arguments (this process's own). */
  script: string;
  args: string[];
  metricsPort: number | null;
  /** DATABASE_POOL_SIZE of each worker (null: the worker's own default). */
  poolSize: number | null;
  logger: Logger;
}

export interface Supervisor {
  /** Passes a stop signal on; resolves with the exit code once every worker has exited. */
  stop(signal: NodeJS.Signals): Promise<number>;
}

/** A worker that dies sooner than this after starting counts as dying young. */
const YOUNG_MS = 10_000;
const RESTART_MIN_MS = 1_000;
const RESTART_MAX_MS = 30_000;

/** What a worker sends its supervisor once it consumes jobs. */
export const STARTED_MESSAGE = 'sp-worker-started';

interface Slot {
  index: number;
  child: ChildProcess | null;
  startedAt: number;
  /** Deaths in a row, each sooner than YOUNG_MS after the start. */
  youngDeaths: number;
  restartTimer: NodeJS.Timeout | null;
}

export async function superviseWorkers(options: SupervisorOptions): Promise<Supervisor> {
  const { logger } = options;
  let stopping = false;
  let failed = false;
  let onAllExited: () => void = () => {};
  const allExited = new Promise<void>((resolve) => {
    onAllExited = resolve;
  });
  const slots: Slot[] = Array.from({ length: options.processes }, (_, index) => ({
    index,
    child: null,
    startedAt: 0,
    youngDeaths: 0,
    restartTimer: null,
  }));

  const checkAllExited = () => {
    if (stopping && slots.every((slot) => slot.child === null && slot.restartTimer === null)) {
      onAllExited();
    }
  };

  /**
   * Starts the slot's worker; resolves when it reports started, rejects if it exits first
   * (`giveUp`: then it is not started again).
   */
  const spawnSlot = (slot: Slot, giveUp = false): Promise<void> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        WORKER_PROCESSES: '1',
        WORKER_INDEX: String(slot.index),
      };
      if (options.poolSize !== null) env.DATABASE_POOL_SIZE = String(options.poolSize);
      if (options.metricsPort !== null) {
        env.METRICS_PORT = String(options.metricsPort === 0 ? 0 : options.metricsPort + slot.index);
      }
      const child = fork(options.script, options.args, { env, stdio: 'inherit' });
      slot.child = child;
      slot.startedAt = Date.now();
      let started = false;
      child.on('message', (message) => {
        if (message !== STARTED_MESSAGE || started) return;
        started = true;
        resolve();
      });
      child.once('exit', (code, signal) => {
        slot.child = null;
        if (!started) {
          reject(new Error(`worker ${slot.index} exited while starting (${code ?? signal})`));
          if (giveUp) return;
        }
        if (stopping) {
          if (code !== 0) failed = true;
          checkAllExited();
          return;
        }
        const young = Date.now() - slot.startedAt < YOUNG_MS;
        slot.youngDeaths = young ? slot.youngDeaths + 1 : 0;
        const delay = doublingDelay(slot.youngDeaths, RESTART_MIN_MS, RESTART_MAX_MS);
        logger.error(
          { worker: slot.index, pid: child.pid, code, signal, restartInMs: delay },
          'worker process died: starting another',
        );
        slot.restartTimer = setTimeout(() => {
          slot.restartTimer = null;
          if (stopping) {
            checkAllExited();
            return;
          }
          spawnSlot(slot).catch(() => {
            // Its exit handler schedules the next try.
          });
        }, delay);
      });
    });

  const stop = (signal: NodeJS.Signals): Promise<number> => {
    stopping = true;
    for (const slot of slots) {
      if (slot.restartTimer) {
        clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
      }
      slot.child?.kill(signal);
    }
    checkAllExited();
    return allExited.then(() => (failed ? 1 : 0));
  };

  const [first, ...rest] = slots;
  if (first) await spawnSlot(first, true);
  await Promise.all(
    rest.map((slot) =>
      spawnSlot(slot).catch((error: unknown) => {
        logger.error({ worker: slot.index, err: String(error) }, 'worker process failed to start');
      }),
    ),
  );
  logger.info({ processes: options.processes }, 'supervising worker processes');
  return { stop };
}
