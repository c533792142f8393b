import type { MetricName, MetricValues } from '../metrics-model.ts';
import type { PublishConnection } from './connection.ts';

/** One published post whose numbers are asked for. */
export interface MetricsReadItem {
  targetId: string;
  platformPostId: string;
  publishedAt: Date;
}

/** What the platform said about one post. */
export type MetricsItemResult =
  | { kind: 'read'; metrics: MetricValues; raw: Record<string, unknown> }
  /** The platform says the post no longer exists (its 404): reading stops. */
  | { kind: 'gone'; message: string }
  /** The platform offers no numbers for it (a private video, a missing scope): says why. */
  | { kind: 'unavailable'; message: string }
  /** This read failed (the platform's own code and words): the older numbers stay, `stale`. */
  | { kind: 'failed'; code: string; message: string };

/** The answer to one batch: per post, or one answer for the whole call. */
export type MetricsBatchOutcome =
  /** A post missing from `results` is a failed read (`not_returned`). */
  | { kind: 'read'; results: ReadonlyMap<string, MetricsItemResult> }
  | { kind: 'failed'; code: string; message: string }
  /** The token was refused: the connection is marked expired (`social_account.expired`). */
  | { kind: 'connection_expired'; message: string }
  /** The platform asked to slow down until `retryAt`: the posts are read again then. */
  | { kind: 'throttled'; code: string; message: string; retryAt: Date };

export interface MetricsReadRequest {
  connection: PublishConnection;
  /** At most the reader's `batchSize` posts, all of this connection. */
  items: readonly MetricsReadItem[];
  signal: AbortSignal;
}

/** How one platform's numbers are read (its folder declares it beside its publisher). */
export interface PlatformMetricsReader {
  /** How many posts one call reads (1: a call per post). */
  readonly batchSize: number;
  /** The numbers this platform reports (the others are always null). */
  readonly reports: readonly MetricName[];
  /**
   * The scopes the read needs, in the platform's own names. A connection whose granted scopes
   * are known and lack one is told to reconnect instead of calling.
   */
  readonly scopes: readonly string[];
  read(request: MetricsReadRequest): Promise<MetricsBatchOutcome>;
}
