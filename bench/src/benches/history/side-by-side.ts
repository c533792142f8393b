/**
 * Times the same figures on two databases side by side: the history grown to a size, and a
 * reference of the smallest size seeded beside it. Their calls alternate one by one (which goes
 * first swaps at every pair), so whatever else the machine does in those seconds (a burst of
 * another process's work, the disk writing out a seed, this process's garbage collections)
 * falls on both alike. Measured a quarter of an hour apart, one size's p99 had such a burst and
 * the other's had not, and the ratio between sizes said more about the machine than about
 * the tables.
 */
import { percentile } from '../../lib/stats.ts';
import { type Probe, warmUps } from './measure.ts';

export interface Sample {
  name: string;
  p50: number;
  /** Over every timed call. */
  p99: number;
  /** The median of the p99s of BLOCKS consecutive blocks, printed beside it. */
  p99OfBlocks: number;
}

/** Each side's calls, in order, are cut into this many blocks for `p99OfBlocks`. */
export const BLOCKS = 5;

export interface Pair {
  grown: Sample;
  reference: Sample;
}

/**
 * p50 and p99 over every call. The median of the blocks' p99s was the figure while the sizes
 * were measured minutes apart: it kept a burst that fell in one size's minutes out of that
 * size's p99. With the calls alternating, a burst falls on both, and the p99 over all the
 * calls (the tenth slowest of 1,000, not the second slowest of 200) is the steadier one: at
 * the first step, two databases of the same size measured this way gave ratios of 0.72-1.29 x
 * over all calls, and up to 1.64 x by the median of blocks.
 */
function sample(name: string, times: number[]): Sample {
  const size = Math.ceil(times.length / BLOCKS);
  const blockP99s = Array.from({ length: BLOCKS }, (_, index) =>
    percentile(times.slice(index * size, (index + 1) * size), 99),
  ).filter((value) => Number.isFinite(value));
  return {
    name,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    p99OfBlocks: percentile(blockP99s, 50),
  };
}

async function timedCall(probe: Probe, times: number[] | null): Promise<void> {
  const started = performance.now();
  await probe.once();
  times?.push(performance.now() - started);
}

/** Both probes of one figure: prepared, warmed up (not counted), then timed call by call. */
async function measureFigure(grown: Probe, reference: Probe): Promise<Pair> {
  await grown.prepare?.();
  await reference.prepare?.();
  const grownTimes: number[] = [];
  const referenceTimes: number[] = [];
  const warm = warmUps(grown.runs);
  for (let index = 0; index < warm + grown.runs; index++) {
    const counted = index >= warm;
    const calls: Array<[Probe, number[] | null]> = [
      [grown, counted ? grownTimes : null],
      [reference, counted ? referenceTimes : null],
    ];
    if (index % 2 === 1) calls.reverse();
    for (const [probe, times] of calls) await timedCall(probe, times);
  }
  await grown.after?.();
  await reference.after?.();
  return {
    grown: sample(grown.name, grownTimes),
    reference: sample(reference.name, referenceTimes),
  };
}

/** The figures of `grown` and `reference`, which must list the same figures in the same order. */
export async function measureSideBySide(grown: Probe[], reference: Probe[]): Promise<Pair[]> {
  const pairs: Pair[] = [];
  for (const [index, probe] of grown.entries()) {
    const other = reference[index];
    if (!other || other.name !== probe.name || other.runs !== probe.runs) {
      throw new Error(`the reference has no figure "${probe.name}" to measure beside it`);
    }
    pairs.push(await measureFigure(probe, other));
  }
  return pairs;
}
