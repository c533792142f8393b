/**
 * `pnpm bench <create|pipeline|schedule|list|upload|import|pacing|media|metrics|all> [--smoke] [--profile] [--mode production|embedded]`
 *
 * Prints plain lines of figures. `all` runs every benchmark, then prints where the time goes for
 * the figure furthest from its target, then one summary table (figure, value, target, met).
 */
import { tuneHeapForServing } from '@social-publisher/runtime/heap-tuning';
import { BENCHES, runBenches } from './index.ts';
import type { Mode } from './lib/infra.ts';
import { stdoutOut } from './lib/report.ts';

const USAGE = `usage: pnpm bench <${[...Object.keys(BENCHES), 'all'].join('|')}> [--smoke] [--profile] [--mode production|embedded]`;

async function main(): Promise<void> {
  // The API and the worker run in this process: with the V8 settings their entry points apply.
  tuneHeapForServing();
  const args = process.argv.slice(2);
  const names = args.filter((arg) => !arg.startsWith('--'));
  const smoke = args.includes('--smoke');
  const profileFlag = args.includes('--profile');
  const modeArg = args.find((arg) => arg.startsWith('--mode='))?.slice('--mode='.length);
  if (names.length !== 1 || !(names[0] === 'all' || (names[0] as string) in BENCHES)) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  if (modeArg !== undefined && modeArg !== 'production' && modeArg !== 'embedded') {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const selected = names[0] === 'all' ? Object.keys(BENCHES) : [names[0] as string];
  const result = await runBenches(selected, {
    smoke,
    out: stdoutOut,
    ...(modeArg ? { modes: [modeArg as Mode] } : {}),
    diagnose: names[0] === 'all' || profileFlag,
  });
  process.exit(result.failures.length > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
