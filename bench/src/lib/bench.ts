/** What every benchmark module exports. */
import type { Mode } from './infra.ts';
import type { Figure, Out } from './report.ts';

export interface BenchOptions {
  /** Tiny sizes: checks that the benchmark still works, in a few seconds. */
  smoke: boolean;
  out: Out;
  /** Which modes to measure (default both where the benchmark has both). */
  modes?: Mode[];
}

export interface Bench {
  name: string;
  /** Measures, prints its lines, returns its figures. */
  run(options: BenchOptions): Promise<Figure[]>;
  /**
   * Prints where the time goes (CPU profile summary and per-port timings) for the figure
   * `figureName` of this benchmark, on a short run.
   */
  diagnose(options: BenchOptions, figureName: string): Promise<void>;
}

/** `run` for a benchmark measured once per mode (production, then embedded, unless narrowed). */
export function eachMode(
  runMode: (mode: Mode, options: BenchOptions) => Promise<Figure[]>,
): (options: BenchOptions) => Promise<Figure[]> {
  return async (options) => {
    const figures: Figure[] = [];
    for (const mode of options.modes ?? (['production', 'embedded'] as const)) {
      figures.push(...(await runMode(mode, options)));
    }
    return figures;
  };
}
