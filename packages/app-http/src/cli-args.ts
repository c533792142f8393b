/** Arguments of the admin CLI (src/cli.ts), parsed without side effects. */
import { parseArgs } from 'node:util';

export const USAGE = `usage: pnpm cli <command>

commands:
  users create [--email <address>]   create a user with an API key; prints {"user_id","api_key"}
`;

export class UsageError extends Error {}

export interface ParsedCommand {
  command: 'users create';
  email: string | undefined;
}

const OPTIONS = {
  email: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function parseCommand(argv: string[]): ParsedCommand {
  const parsed = parse(argv);
  const [group, action, ...rest] = parsed.positionals;
  if (parsed.values.help) throw new UsageError('');
  if (group !== 'users' || action !== 'create' || rest.length > 0) {
    throw new UsageError(
      group === undefined ? 'missing command' : `unknown command: ${parsed.positionals.join(' ')}`,
    );
  }
  const email = parsed.values.email;
  if (email !== undefined && email.trim() === '') throw new UsageError('--email needs an address');
  return { command: 'users create', email };
}
