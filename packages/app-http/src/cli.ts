/**
 * Admin CLI.
 *   pnpm cli users create [--email E]   prints { "user_id", "api_key" } as JSON
 *   pnpm cli secrets reencrypt          re-encrypts every stored secret with ENCRYPTION_KEY;
 *                                       prints { "reencrypted", "unchanged", "unreadable" };
 *                                       exits 1 when a row could not be read (left as it was)
 * Usage errors exit 2 with the usage on stderr; failures exit 1 with one line.
 */
import { type Config, ConfigError } from '@social-publisher/config';
import { createUser, errorMessage } from '@social-publisher/domain';
import {
  createRuntime,
  loadRuntimeConfig,
  type Runtime,
  reencryptStoredSecrets,
  StartupError,
} from '@social-publisher/runtime';
import pino from 'pino';
import { type ParsedCommand, parseCommand, USAGE, UsageError } from './cli-args.ts';
import { createLogger } from './logger.ts';

async function main(argv: string[]): Promise<number> {
  let command: ParsedCommand;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message ? `error: ${error.message}\n\n` : ''}${USAGE}`);
    return error.message ? 2 : 0;
  }
  let runtime: Runtime | undefined;
  try {
    const config = loadRuntimeConfig();
    // Logs go to stderr: stdout carries only the JSON result.
    const logger = createLogger(
      { logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel },
      { name: 'cli', destination: pino.destination(2) },
    );
    if (command.command === 'secrets reencrypt') return await reencrypt(config, logger);
    runtime = await createRuntime(config, logger, { role: 'api' });
    const result = await createUser(runtime.deps, { email: command.email });
    if (!result.ok) {
      const details = result.error.code === 'validation_failed' ? result.error.details : [];
      const why =
        details.length > 0
          ? details.map((d) => `${d.field} ${d.message}`).join('; ')
          : result.error.message;
      process.stderr.write(`error: ${why}\n`);
      return 1;
    }
    process.stdout.write(
      `${JSON.stringify({ user_id: result.value.user.id, api_key: result.value.rawKey }, null, 2)}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await runtime?.close();
  }
}

async function reencrypt(config: Config, logger: ReturnType<typeof createLogger>): Promise<number> {
  const report = await reencryptStoredSecrets(config, logger);
  process.stdout.write(
    `${JSON.stringify(
      {
        reencrypted: report.reencrypted,
        unchanged: report.unchanged,
        unreadable: report.unreadable.map(({ table, id, reason }) => ({ table, id, reason })),
      },
      null,
      2,
    )}\n`,
  );
  if (report.unreadable.length === 0) return 0;
  // Those rows are untouched: the old key can still be added to ENCRYPTION_KEY_PREVIOUS.
  process.stderr.write(
    `error: ${report.unreadable.length} stored secret(s) could not be decrypted with ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS; they were left as they are\n`,
  );
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    process.exit(1);
  },
);
