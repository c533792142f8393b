/**
 * import: POST /posts/import of a 1,000-row CSV (scheduled posts to two sandbox connections),
 * first as a dry run, then for real, one request at a time on a fresh API each mode. Prints the
 * time to the last byte and rows per second. Informational: the issue asks for the numbers.
 */
import { buildApp } from '@social-publisher/app-http';
import type { Config } from '@social-publisher/config';
import { createRuntime } from '@social-publisher/runtime';
import { type Bench, type BenchOptions, eachMode } from '../lib/bench.ts';
import {
  benchConfig,
  benchLogger,
  connectionIds,
  createBackend,
  MODE_LABEL,
  type Mode,
  seedUser,
} from '../lib/infra.ts';
import type { Figure } from '../lib/report.ts';
import { fmt, fmtRuns, median } from '../lib/stats.ts';
import { withStorage } from '../lib/storage.ts';

function sizes(smoke: boolean) {
  return smoke ? { rows: 100, runs: 1 } : { rows: 1_000, runs: 3 };
}

function csvOf(rows: number, ids: string[], run: number): string {
  const at = new Date(Date.now() + 24 * 3_600_000).toISOString();
  const lines = ['scheduled_at,content,social_account_ids,media_urls'];
  for (let row = 1; row <= rows; row++) {
    lines.push(`${at},"Run ${run}, row ${row}: a caption",${ids.join('|')},`);
  }
  return lines.join('\n');
}

async function timeImport(url: string, key: string, body: string, dryRun: boolean) {
  const started = performance.now();
  const response = await fetch(`${url}/posts/import${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body,
  });
  const json = (await response.json()) as { data?: { failed: number; created: number } };
  const ms = performance.now() - started;
  if (response.status !== 200 || json.data?.failed !== 0) {
    throw new Error(`import answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
  }
  return ms;
}

async function runMode(mode: Mode, options: BenchOptions): Promise<Figure[]> {
  const { rows, runs } = sizes(options.smoke);
  const label = MODE_LABEL[mode];
  const backend = await createBackend(mode, 'import');
  try {
    const config: Config = benchConfig(backend);
    const seeded = await withStorage(config, ({ deps }) => seedUser(deps, ['twitter', 'linkedin']));
    const ids = connectionIds(seeded, ['twitter', 'linkedin']);
    const { logger } = benchLogger(`import ${mode}`);
    const runtime = await createRuntime(config, logger, {
      role: mode === 'production' ? 'api' : 'embedded',
    });
    const app = await buildApp({
      deps: runtime.deps,
      checks: runtime.checks,
      queueKind: runtime.queueKind,
      config,
      logger,
    });
    const dry: number[] = [];
    const real: number[] = [];
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('no address');
      const url = `http://127.0.0.1:${address.port}`;
      for (let run = 0; run < runs; run++) {
        const body = csvOf(rows, ids, run);
        dry.push(await timeImport(url, seeded.rawKey, body, true));
        real.push(await timeImport(url, seeded.rawKey, body, false));
      }
    } finally {
      await app.close();
      await runtime.close();
    }
    const dryMs = median(dry);
    const realMs = median(real);
    options.out(
      `import ${label}: ${rows} rows x 2 targets; dry run ${fmt(dryMs, 0)} ms (runs ${fmtRuns(dry, 0)}), ${fmt((rows / dryMs) * 1000, 0)} rows/s; import ${fmt(realMs, 0)} ms (runs ${fmtRuns(real, 0)}), ${fmt((rows / realMs) * 1000, 0)} rows/s`,
    );
    return [
      {
        bench: 'import',
        name: `import ${label}: dry run of ${rows} rows`,
        value: dryMs,
        unit: 'ms',
      },
      {
        bench: 'import',
        name: `import ${label}: import of ${rows} rows`,
        value: realMs,
        unit: 'ms',
      },
    ];
  } finally {
    await backend.cleanup();
  }
}

export const importBench: Bench = {
  name: 'import',
  run: eachMode(runMode),
  async diagnose(options) {
    options.out('import: no diagnosis beyond the run itself (see the per-run times above)');
  },
};
