import type {
  DailyMetrics,
  DailyQuery,
  MetricSnapshot,
  MetricsState,
  MetricTrack,
} from '../../metrics-model.ts';

/** What one read (or one refusal to read) changes on a track. */
export interface TrackUpdate {
  targetId: string;
  state: MetricsState;
  step: number;
  dueAt: Date | null;
  error: string | null;
  /** Set when numbers were read: appended to the history and kept as the latest. */
  snapshot?: MetricSnapshot;
}

/** A track put back to wait, as it was (a refused pace, a platform's "slow down"). */
export interface TrackPostponement {
  targetId: string;
  dueAt: Date;
}

/** Snapshots in (taken_at, id) order after `after`, at most `limit`. */
export interface SnapshotPage {
  limit: number;
  after?: { takenAt: Date; id: string };
}

/**
 * The numbers of published targets: one track per target (its latest numbers and when to read
 * next), and the append-only snapshots. Tracks are created with the target's publication
 * (`PostRepository.completeTarget` with `metricsDueAt`), in the same statement.
 */
export interface MetricsRepository {
  /**
   * Up to `limit` tracks due at `now` (earliest due first) whose due time moves to `leaseUntil`
   * in the same statement: no other worker takes them meanwhile, and a worker that dies holding
   * them gives them back when the lease runs out. Costs what the due tracks cost, not all.
   */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<MetricTrack[]>;
  /** Applies the updates: the snapshots appended, the tracks changed, all or none. */
  record(updates: readonly TrackUpdate[]): Promise<void>;
  /** Gives claimed tracks back until a later time, nothing else changed. */
  postpone(postponements: readonly TrackPostponement[]): Promise<void>;
  /** The tracks of a post's targets (ordered by target id). */
  listByPost(postId: string): Promise<MetricTrack[]>;
  /** Snapshots of a post, of one target when `targetId` is given, oldest first. */
  history(postId: string, targetId: string | null, page: SnapshotPage): Promise<MetricSnapshot[]>;
  /**
   * Makes due at `now` every track of the post that is not `gone` and was not read after
   * `readBefore` nor is already due: returns how many.
   */
  requestRefresh(postId: string, now: Date, readBefore: Date): Promise<number>;
  /** Per day (UTC) of publication, the latest numbers summed; days without posts left out. */
  daily(query: DailyQuery): Promise<DailyMetrics[]>;
  /** Deletes up to `limit` snapshots taken before `cutoff` (METRICS_RETENTION_DAYS): how many. */
  deleteSnapshotsBefore(cutoff: Date, limit: number): Promise<number>;
}
