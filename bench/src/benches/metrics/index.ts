/**
 * metrics: the three figures of metrics over time, printed beside their floors.
 * - finding the due reads among 10^4 and 10^6 tracked (claim.ts);
 * - reading against fakes with batch endpoints vs a bare loop of the same calls (reads.ts);
 * - publish lateness with a backlog of 100,000 due reads vs without (backlog.ts).
 */
import type { Bench } from '../../lib/bench.ts';
import type { Figure } from '../../lib/report.ts';
import { backlogFigures } from './backlog.ts';
import { claimFigures } from './claim.ts';
import { readFigures } from './reads.ts';

export const metricsBench: Bench = {
  name: 'metrics',
  async run(options) {
    const figures: Figure[] = [];
    // The lateness first: the million-row database of the claim figures takes a while to drop.
    figures.push(...(await backlogFigures(options.smoke, options.out)));
    figures.push(...(await readFigures(options.smoke, options.out)));
    figures.push(...(await claimFigures(options.smoke, options.out)));
    return figures;
  },
  async diagnose(options) {
    options.out('metrics: no diagnosis beyond the run itself');
  },
};
