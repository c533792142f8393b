import type { PostSeries, PostSeriesStatus, SeriesOccurrence } from '../../series-model.ts';

/** An active series and the rule time of its latest occurrence that has a post. */
export interface ActiveSeries {
  series: PostSeries;
  lastOccurrenceAt: Date | null;
}

export interface PostSeriesRepository {
  insert(series: PostSeries): Promise<void>;
  findById(id: string): Promise<PostSeries | null>;
  /**
   * At most `limit` active series that have fewer than `ahead` occurrences after `now` (the
   * ones that need another), those whose latest occurrence is earliest first.
   */
  listNeedingOccurrences(now: Date, ahead: number, limit: number): Promise<ActiveSeries[]>;
  /**
   * Records that the series' occurrence at `occurrenceAt` is the post `postId`. False, and
   * nothing written, when that occurrence already has a post or the series is not active.
   * Holds the series until the transaction ends, so a concurrent stop waits for it.
   */
  claimOccurrence(seriesId: string, occurrenceAt: Date, postId: string): Promise<boolean>;
  /** The occurrences that have a post, in time order. */
  listOccurrences(seriesId: string): Promise<SeriesOccurrence[]>;
  /** Sets the status only when the current one is in `from`; returns whether it applied. */
  setStatus(
    id: string,
    from: readonly PostSeriesStatus[],
    to: PostSeriesStatus,
    at: Date,
  ): Promise<boolean>;
}
