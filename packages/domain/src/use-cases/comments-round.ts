/**
 * The worker's round over due comment reads: passes of readDueComments back to back while each
 * claims a full batch (at most `maxPasses`), giving way to posts about to publish as the metrics
 * round does.
 */
import type { CoreDeps } from '../deps.ts';
import { type CommentsPassReport, emptyCommentsReport, readDueComments } from './comments-reads.ts';
import { publishAboutToStart } from './metrics-round.ts';

export async function readCommentsRound(
  deps: CoreDeps,
  signal: AbortSignal,
  maxPasses: number,
): Promise<CommentsPassReport> {
  const total = emptyCommentsReport(0);
  for (let pass = 0; pass < maxPasses && !signal.aborted; pass++) {
    if (await publishAboutToStart(deps)) break;
    const report = await readDueComments(deps, signal);
    for (const key of Object.keys(total) as Array<keyof CommentsPassReport>) {
      total[key] += report[key];
    }
    if (report.claimed < deps.settings.metricsPassSize) break;
  }
  return total;
}
