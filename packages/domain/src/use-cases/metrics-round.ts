/**
 * The worker's round over due metric reads: passes of readDueMetrics back to back in two lanes
 * while full batches are due, giving way to posts about to publish; and the retention sweep of
 * old snapshots.
 */
import type { CoreDeps } from '../deps.ts';
import { type MetricsPassReport, passReport, readDueMetrics } from './metrics-reads.ts';

/** Passes that run side by side in one round: one claims while the other waits on platforms. */
const ROUND_LANES = 2;

/** How far ahead a round looks for posts about to publish: longer than a pass takes. */
export const PUBLISH_GUARD_MS = 1_000;

/**
 * Whether a post is due to start publishing within PUBLISH_GUARD_MS (or is due and not
 * started): reads give way to it, so a post waiting to publish never waits for a read's
 * database writes. Posts already publishing (a video being processed) do not hold reads back.
 */
export async function publishAboutToStart(deps: CoreDeps): Promise<boolean> {
  const until = new Date(deps.clock.now().getTime() + PUBLISH_GUARD_MS);
  const due = await deps.repos.posts.findDuePosts(until, 20);
  return due.some((post) => post.status === 'scheduled' || post.status === 'queued');
}

/**
 * The worker's round: passes back to back while each finds a full batch due (at most
 * `maxPasses`), in two lanes, so that claiming and storing overlap the platforms' answers.
 * Before each pass it gives way to posts about to publish: the round ends, and the next one
 * (METRICS_READ_INTERVAL_MS later) reads on. Returns the sum of the passes' reports.
 */
export async function readMetricsRound(
  deps: CoreDeps,
  signal: AbortSignal,
  maxPasses: number,
): Promise<MetricsPassReport> {
  const total = passReport([], [], 0);
  let passes = 0;
  let drained = false;
  const lane = async () => {
    while (!drained && passes < maxPasses && !signal.aborted) {
      if (await publishAboutToStart(deps)) {
        drained = true;
        break;
      }
      passes++;
      const pass = await readDueMetrics(deps, signal);
      for (const key of Object.keys(total) as Array<keyof MetricsPassReport>) {
        total[key] += pass[key];
      }
      if (pass.claimed < deps.settings.metricsPassSize) drained = true;
    }
  };
  await Promise.all(Array.from({ length: ROUND_LANES }, lane));
  return total;
}

/** Deletes snapshots older than METRICS_RETENTION_DAYS, a bounded number per call. */
export async function sweepOldSnapshots(deps: CoreDeps, limit = 10_000): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.settings.metricsRetentionMs);
  return deps.repos.metrics.deleteSnapshotsBefore(cutoff, limit);
}
