/** Arguments of the admin CLI (src/cli.ts), parsed without side effects. */
import { parseArgs } from 'node:util';
import { errorMessage } from '@social-publisher/domain';

export const USAGE = `usage: pnpm cli <command>

commands:
  users create [--email <address>]   create a user with an API key; prints {"user_id","api_key"}
  secrets reencrypt                  re-encrypt every stored secret with ENCRYPTION_KEY (after a
                                     rotation, with the old key in ENCRYPTION_KEY_PREVIOUS);
                                     prints {"reencrypted","unchanged","unreadable"}
`;

export class UsageError extends Error {}

export type ParsedCommand =
  | { command: 'users create'; email: string | undefined }
  | { command: 'secrets reencrypt' };

const OPTIONS = {
  email: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

export function parseCommand(argv: string[]): ParsedCommand {
  const parsed = parse(argv);
  const [group, action, ...rest] = parsed.positionals;
  if (parsed.values.help) throw new UsageError('');
  const name = `${group} ${action}`;
  if (rest.length > 0 || (name !== 'users create' && name !== 'secrets reencrypt')) {
    throw new UsageError(
      group === undefined ? 'missing command' : `unknown command: ${parsed.positionals.join(' ')}`,
    );
  }
  const email = parsed.values.email;
  if (name === 'secrets reencrypt') {
    if (email !== undefined) throw new UsageError('secrets reencrypt takes no --email');
    return { command: name };
  }
  if (email !== undefined && email.trim() === '') throw new UsageError('--email needs an address');
  return { command: 'users create', email };
}
