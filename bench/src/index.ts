/**
 * The benchmarks of `pnpm bench` (see run.ts), also callable from tests: each returns its
 * figures and prints plain lines through `out`.
 */
import { createBench } from './benches/create.ts';
import { historyBench } from './benches/history/index.ts';
import { importBench } from './benches/import.ts';
import { listBench } from './benches/list.ts';
import { mediaBench } from './benches/media.ts';
import { metricsBench } from './benches/metrics/index.ts';
import { pacingBench } from './benches/pacing.ts';
import { pipelineBench } from './benches/pipeline.ts';
import { scheduleBench } from './benches/schedule.ts';
import { soakBench } from './benches/soak.ts';
import { uploadBench } from './benches/upload.ts';
import type { Bench, BenchOptions } from './lib/bench.ts';
import { type Figure, figureLine, met, score, summaryTable } from './lib/report.ts';
import { fmt } from './lib/stats.ts';

export type { Bench, BenchOptions } from './lib/bench.ts';
export type { Figure, Out, Target } from './lib/report.ts';
export { met, score, summaryTable } from './lib/report.ts';

export const BENCHES: Record<string, Bench> = {
  create: createBench,
  pipeline: pipelineBench,
  schedule: scheduleBench,
  list: listBench,
  upload: uploadBench,
  import: importBench,
  pacing: pacingBench,
  media: mediaBench,
  metrics: metricsBench,
  history: historyBench,
  soak: soakBench,
};

export interface RunOptions extends BenchOptions {
  /** After the runs, print where the time goes for the figure furthest from its target. */
  diagnose?: boolean;
}

export interface RunResult {
  figures: Figure[];
  failures: Array<{ bench: string; error: string }>;
}

/** The figure furthest from its target (lowest score), if any has a target. */
export function worstFigure(figures: readonly Figure[]): Figure | undefined {
  let worst: Figure | undefined;
  for (const figure of figures) {
    if (!figure.target) continue;
    if (!worst || score(figure) < score(worst)) worst = figure;
  }
  return worst;
}

export async function runBenches(names: string[], options: RunOptions): Promise<RunResult> {
  const { out } = options;
  const started = performance.now();
  const figures: Figure[] = [];
  const failures: RunResult['failures'] = [];
  out(
    `bench: ${names.join(', ')}${options.smoke ? ' (smoke sizes)' : ''}; node ${process.version}`,
  );
  for (const name of names) {
    const bench = BENCHES[name];
    if (!bench) throw new Error(`unknown benchmark ${name}`);
    const benchStarted = performance.now();
    out('');
    out(`== ${name}`);
    try {
      const produced = await bench.run(options);
      for (const figure of produced) out(figureLine(figure));
      figures.push(...produced);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push({ bench: name, error: message });
      out(`${name}: FAILED: ${message}`);
    }
    out(`== ${name} took ${fmt((performance.now() - benchStarted) / 1000, 1)} s`);
  }

  const worst = options.diagnose ? worstFigure(figures) : undefined;
  if (worst) {
    const bench = BENCHES[worst.bench];
    out('');
    out(
      `== where the time goes: ${worst.name} (${fmt(score(worst), 2)} x its target, the furthest from it)`,
    );
    try {
      await bench?.diagnose(options, worst.name);
    } catch (error) {
      out(
        `diagnose failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }

  out('');
  out(
    `== summary (${fmt((performance.now() - started) / 1000, 0)} s${options.smoke ? ', smoke sizes: not representative' : ''})`,
  );
  for (const line of summaryTable(figures)) out(line);
  const missed = figures.filter((figure) => met(figure) === false);
  out(
    `targets: ${figures.filter((f) => f.target).length - missed.length} met, ${missed.length} not met`,
  );
  for (const failure of failures) out(`FAILED: ${failure.bench}`);
  return { figures, failures };
}
