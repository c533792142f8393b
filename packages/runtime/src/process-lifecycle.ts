/**
 * What every entry point (`pnpm start`, `start:api`, `start:worker`) does around its work:
 * read the config or stop with one line, refuse a production role without its shared parts,
 * and stop on SIGTERM/SIGINT within a deadline (a second signal exits at once).
 */
import { type Config, ConfigError } from '@social-publisher/config';
import { errorMessage, type Logger } from '@social-publisher/domain';
import type pino from 'pino';
import { StartupError } from './errors.ts';
import { onLauncherGone } from './launcher.ts';
import { createRuntime, loadRuntimeConfig, type Runtime, type RuntimeOptions } from './runtime.ts';

/** Past this, a shutdown that is still waiting (a stuck handler) gives up and exits. */
export const SHUTDOWN_DEADLINE_MS = 30_000;

/** Stops the process with one line on stderr. */
export function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** Stops the process with one line when `main` fails before it is running. */
export function failOnStartError(what: string): (error: unknown) => never {
  return (error) => fail(`${what} failed to start: ${errorMessage(error)}`);
}

export function readConfigOrFail(): Config {
  try {
    return loadRuntimeConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

/** The variables a production role lacks: the database and the queue it shares with others. */
export const missingSharedParts = (config: Config): string[] =>
  [config.databaseUrl ? null : 'DATABASE_URL', config.redis ? null : 'REDIS_URL'].filter(
    (name) => name !== null,
  );

export async function createRuntimeOrFail(
  config: Config,
  logger: pino.Logger,
  options: RuntimeOptions,
): Promise<Runtime> {
  try {
    return await createRuntime(config, logger, options);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError) fail(error.message);
    throw error;
  }
}

export interface ShutdownOnSignals {
  /** Signals received so far (a start that sees one stops going on). */
  readonly signals: number;
  /** Acts as if SIGTERM arrived (the launcher or a supervisor is gone). */
  stop(): void;
}

/**
 * SIGTERM/SIGINT (and the end of the pnpm script that launched the process) run `shutdown()`
 * once, then exit 0; a failure or the deadline exits 1; a second signal exits 130 at once.
 * `shutdown` is read at the signal, so a start can widen it as it brings parts up.
 */
export function shutdownOnSignals(options: {
  logger: Logger;
  shutdown: () => Promise<void>;
  stoppingMessage: string;
  stoppedMessage: string;
  deadlineMs?: number;
}): ShutdownOnSignals {
  const { logger } = options;
  const deadlineMs = options.deadlineMs ?? SHUTDOWN_DEADLINE_MS;
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, options.stoppingMessage);
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, deadlineMs).unref();
    options.shutdown().then(
      () => {
        logger.info({}, options.stoppedMessage);
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: errorMessage(error) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  onLauncherGone(() => {
    logger.info({}, 'the script runner that launched this process is gone');
    onSignal('SIGTERM');
  });
  return {
    get signals() {
      return signals;
    },
    stop: () => onSignal('SIGTERM'),
  };
}
