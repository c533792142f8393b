/**
 * The worker's pass over due metric reads: claim what is due, read it connection by connection
 * in the platform's batches, on the connection's read budget (never publishing's), and store
 * each answer as a snapshot and the track's next due time. A platform's refusal never fails
 * anything of ours: the target shows `stale` with the platform's reason.
 */
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { MetricTrack } from '../metrics-model.ts';
import type { SocialAccount } from '../model.ts';
import { nextScheduledRead } from '../policies/metrics-schedule.ts';
import type {
  MetricsBatchOutcome,
  MetricsItemResult,
  PlatformMetricsReader,
  TrackPostponement,
  TrackUpdate,
} from '../ports/index.ts';
import { expireConnection } from './connection-tokens.ts';
import { notifyMetricsUpdated } from './metrics-events.ts';
import { decryptConnection } from './publish-request.ts';
import { connectionToRead, observeReadWait, paceRead, readByConnection } from './read-pass.ts';
import { sandboxMetrics } from './sandbox-metrics.ts';

export interface MetricsPassReport {
  claimed: number;
  fresh: number;
  stale: number;
  gone: number;
  unavailable: number;
  postponed: number;
}

/** What reading one connection's due tracks decided. */
interface GroupResult {
  updates: TrackUpdate[];
  postponed: TrackPostponement[];
}

/** The track after a read that answered `result` at `at`, its next scheduled read set. */
export function afterRead(
  deps: Pick<CoreDeps, 'settings' | 'ids'>,
  track: MetricTrack,
  result: MetricsItemResult,
  at: Date,
): TrackUpdate {
  const next = nextScheduledRead(
    track.publishedAt,
    track.step,
    at,
    deps.settings.metricsRefreshScheduleMs,
  );
  const base = { targetId: track.targetId, step: next.step, dueAt: next.dueAt };
  switch (result.kind) {
    case 'read':
      return {
        ...base,
        state: 'fresh',
        error: null,
        snapshot: {
          id: deps.ids.newId(),
          targetId: track.targetId,
          takenAt: at,
          metrics: result.metrics,
          raw: result.raw,
          sandbox: track.sandbox,
        },
      };
    case 'failed':
      return { ...base, state: 'stale', error: `${result.code}: ${result.message}` };
    case 'gone':
      return { ...base, step: track.step, dueAt: null, state: 'gone', error: result.message };
    case 'unavailable':
      return { ...base, state: 'unavailable', error: result.message };
  }
}

/** Every track of the group ends the same way (no connection, no reader, a refused batch...). */
const allAs = (
  deps: Pick<CoreDeps, 'settings' | 'ids'>,
  tracks: readonly MetricTrack[],
  result: MetricsItemResult,
  at: Date,
): TrackUpdate[] => tracks.map((track) => afterRead(deps, track, result, at));

/** Why a real connection's tracks cannot be read at all, or null when they can. */
function unreadable(
  connection: SocialAccount | null,
  reader: PlatformMetricsReader | undefined,
  platform: string,
): MetricsItemResult | null {
  const readable = connectionToRead(connection, reader?.scopes, 'reading numbers');
  if (!readable.ok && readable.kind === 'failed') {
    return { kind: 'failed', code: readable.code, message: readable.message };
  }
  if (!reader) {
    return { kind: 'unavailable', message: `numbers are not read for ${platform} posts` };
  }
  return readable.ok ? null : { kind: 'unavailable', message: readable.message };
}

/** One batch read through the platform's reader; a throw is a failed read like any other. */
async function callReader(
  deps: CoreDeps,
  reader: PlatformMetricsReader,
  connection: SocialAccount,
  chunk: readonly MetricTrack[],
  signal: AbortSignal,
): Promise<MetricsBatchOutcome> {
  try {
    const items = chunk.map(({ targetId, platformPostId, publishedAt }) => ({
      targetId,
      platformPostId,
      publishedAt,
    }));
    return await reader.read({ connection: decryptConnection(deps, connection), items, signal });
  } catch (error) {
    return { kind: 'failed', code: 'internal_error', message: errorMessage(error) };
  }
}

/** Reads one batch of a connection's tracks and says what becomes of each. */
async function readChunk(
  deps: CoreDeps,
  reader: PlatformMetricsReader,
  connection: SocialAccount,
  chunk: readonly MetricTrack[],
  signal: AbortSignal,
): Promise<GroupResult> {
  const waitUntil = await paceRead(deps, connection, `metrics:${chunk[0]?.targetId}`);
  if (waitUntil) {
    return {
      updates: [],
      postponed: chunk.map((t) => ({ targetId: t.targetId, dueAt: waitUntil })),
    };
  }
  const outcome = await callReader(deps, reader, connection, chunk, signal);
  const at = deps.clock.now();
  switch (outcome.kind) {
    case 'read': {
      const missing: MetricsItemResult = {
        kind: 'failed',
        code: 'not_returned',
        message: 'the platform did not return this post',
      };
      const updates = chunk.map((track) =>
        afterRead(deps, track, outcome.results.get(track.targetId) ?? missing, at),
      );
      return { updates, postponed: [] };
    }
    case 'throttled': {
      await observeReadWait(deps, connection, outcome.retryAt);
      const postponed = chunk.map((t) => ({ targetId: t.targetId, dueAt: outcome.retryAt }));
      return { updates: [], postponed };
    }
    case 'connection_expired':
      await expireConnection(deps, connection, outcome.message);
      return {
        updates: allAs(
          deps,
          chunk,
          { kind: 'failed', code: 'connection_expired', message: outcome.message },
          at,
        ),
        postponed: [],
      };
    case 'failed':
      return { updates: allAs(deps, chunk, outcome, at), postponed: [] };
  }
}

/** The due tracks of one connection: sandbox numbers, or the platform's, batch by batch. */
async function readConnection(
  deps: CoreDeps,
  connection: SocialAccount | null,
  tracks: readonly MetricTrack[],
  signal: AbortSignal,
): Promise<GroupResult> {
  const platform = tracks[0]?.platform ?? '';
  const reader = deps.platforms.metricsReader(platform);
  const at = deps.clock.now();
  const sandbox = tracks.filter((track) => track.sandbox);
  const real = tracks.filter((track) => !track.sandbox);
  const updates = sandbox.map((track) =>
    afterRead(
      deps,
      track,
      { kind: 'read', ...sandboxMetrics(track.targetId, track.publishedAt, at, reader?.reports) },
      at,
    ),
  );
  const result: GroupResult = { updates, postponed: [] };
  if (real.length === 0) return result;
  const refusal = unreadable(connection, reader, platform);
  if (refusal || !connection || !reader) {
    const why = refusal ?? { kind: 'failed', code: 'internal_error', message: 'no reader' };
    result.updates.push(...allAs(deps, real, why, at));
    return result;
  }
  for (let start = 0; start < real.length && !signal.aborted; start += reader.batchSize) {
    const chunk = real.slice(start, start + reader.batchSize);
    const read = await readChunk(deps, reader, connection, chunk, signal);
    result.updates.push(...read.updates);
    result.postponed.push(...read.postponed);
  }
  return result;
}

/** What a pass did; `passReport([], [], 0)` is a pass that found nothing. */
export function passReport(
  claimed: readonly MetricTrack[],
  updates: readonly TrackUpdate[],
  postponed: number,
): MetricsPassReport {
  const count = (state: string) => updates.filter((update) => update.state === state).length;
  return {
    claimed: claimed.length,
    fresh: count('fresh'),
    stale: count('stale'),
    gone: count('gone'),
    unavailable: count('unavailable'),
    postponed,
  };
}

/**
 * Stores what a pass read, in one record statement (per-connection statements cost more than
 * they overlap: measured, 6,900 against 9,800 reads a second), and tells who listens.
 */
async function storeReads(
  deps: CoreDeps,
  tracks: readonly MetricTrack[],
  read: GroupResult,
): Promise<void> {
  await deps.repos.metrics.record(read.updates);
  if (read.postponed.length > 0) await deps.repos.metrics.postpone(read.postponed);
  countOutcomes(deps, tracks, read.updates, read.postponed);
  await notifyMetricsUpdated(deps, tracks, read.updates);
}

/**
 * One pass: claims up to `metricsPassSize` due reads, reads them (a few connections at a time)
 * and stores the answers. A pass that claimed a full batch is a sign that more are due (see
 * readMetricsRound, whose two lanes overlap one pass's writes with the other's calls).
 */
export async function readDueMetrics(
  deps: CoreDeps,
  signal: AbortSignal,
): Promise<MetricsPassReport> {
  const { settings, repos } = deps;
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + settings.metricsReadLeaseMs);
  const tracks = await repos.metrics.claimDue(now, settings.metricsPassSize, leaseUntil);
  if (tracks.length === 0) return passReport(tracks, [], 0);
  for (const track of tracks) {
    if (track.dueAt) deps.metrics?.metricsReadLate(now.getTime() - track.dueAt.getTime());
  }
  // Whatever is not reached (shutting down) comes back when its claim runs out.
  const reads = await readByConnection(deps, tracks, (connection, group) =>
    readConnection(deps, connection, group, signal),
  );
  const all: GroupResult = {
    updates: reads.flatMap((read) => read.updates),
    postponed: reads.flatMap((read) => read.postponed),
  };
  await storeReads(deps, tracks, all);
  return passReport(tracks, all.updates, all.postponed.length);
}

function countOutcomes(
  deps: CoreDeps,
  tracks: readonly MetricTrack[],
  updates: readonly TrackUpdate[],
  postponed: readonly TrackPostponement[],
): void {
  if (!deps.metrics) return;
  const platformOf = new Map(tracks.map((track) => [track.targetId, track.platform]));
  const counts = new Map<string, number>();
  const add = (targetId: string, outcome: string) => {
    const key = `${platformOf.get(targetId)}\u0000${outcome}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  };
  for (const update of updates) add(update.targetId, update.state);
  for (const wait of postponed) add(wait.targetId, 'postponed');
  for (const [key, count] of counts) {
    const [platform, outcome] = key.split('\u0000') as [string, string];
    deps.metrics.metricsRead(platform, outcome, count);
  }
}

/** Kept here too: the pacer key of reads was first exported with the metrics pass. */
export { readPaceKey } from './read-pass.ts';
