/**
 * `pnpm chaos [--size ci|full] [--only storm,postgres,redis,webhooks,unpublish,replies]`: the
 * fault suite. Runs the service as processes (API + workers on PostgreSQL + BullMQ, from the
 * real entry points) against fake platforms, injects one fault per scenario, and prints, per
 * scenario: posts accepted, lost (never ended), published twice (counted at the fake
 * platforms), outcome_unknown targets, kills, the API's answers by status, missing webhooks,
 * error log lines. Exits 1 when any scenario lost or duplicated a post, or broke another of its
 * checks.
 */
import { withBackend } from '../lib/infra.ts';
import { repliesStorm } from './replies.ts';
import {
  postgresDown,
  type Result,
  redisLost,
  SIZES,
  type Size,
  storm,
  webhookReceiverDown,
} from './scenarios.ts';
import { unpublishStorm } from './unpublish.ts';

const SCENARIOS = {
  storm,
  postgres: postgresDown,
  redis: redisLost,
  webhooks: webhookReceiverDown,
  unpublish: unpublishStorm,
  replies: repliesStorm,
} as const;
type Name = keyof typeof SCENARIOS;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function describe(result: Result): string {
  const t = result.tally;
  const statuses = [...result.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status === 0 ? 'no answer' : status}: ${count}`)
    .join(', ');
  const unknown = Object.entries(t.unknownByPlatform)
    .map(([platform, count]) => `${platform} ${count}`)
    .join(', ');
  const failed = Object.entries(t.failedByCode)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  return [
    `${result.failures.length === 0 ? 'PASS' : 'FAIL'}  ${result.name}  (${result.seconds.toFixed(1)} s)`,
    `  posts accepted ${t.posts}, published ${t.published}, lost ${t.lost}, published twice ${t.duplicated}`,
    `  outcome_unknown targets ${t.outcomeUnknown}${unknown ? ` (${unknown})` : ''}, worker kills ${result.kills}${result.kills > 0 ? ` (${(t.outcomeUnknown / result.kills).toFixed(2)} unknown per kill)` : ''}${failed ? `, other failed targets: ${failed}` : ''}`,
    `  API answers: ${statuses || 'none'}; terminal webhooks missing ${result.missingWebhooks}; error log lines ${result.errorLines.length}`,
    ...(result.notes ?? []),
    ...result.failures.map((failure) => `  ! ${failure}`),
    ...t.failures.map((failure) => `    failed target: ${failure.slice(0, 300)}`),
    ...result.errorLines.slice(0, 5).map((line) => `    ${line.slice(0, 300)}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const sizeName = (argument('size') ?? 'full') as Size['name'];
  const size = SIZES[sizeName];
  if (!size) throw new Error(`--size must be ${Object.keys(SIZES).join(' or ')}`);
  const only = argument('only')?.split(',') ?? Object.keys(SCENARIOS);
  const unknown = only.filter((name) => !(name in SCENARIOS));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`,
    );
  }
  console.log(`fault suite, size ${size.name}: ${only.join(', ')}`);
  const results: Result[] = [];
  for (const name of only as Name[]) {
    const result = await withBackend('production', `chaos-${name}`, (backend) =>
      SCENARIOS[name](backend, size),
    );
    console.log(describe(result));
    results.push(result);
  }
  const failed = results.filter((result) => result.failures.length > 0);
  console.log(
    failed.length === 0
      ? `fault suite passed (${results.length} scenarios)`
      : `fault suite FAILED: ${failed.map((result) => result.name).join('; ')}`,
  );
  process.exitCode = failed.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
