/**
 * What the use cases report for operators' dashboards (a Prometheus registry in the runtime).
 * Calls are fire-and-forget and must never throw; without an implementation nothing is counted.
 */
export interface Metrics {
  /** A post was accepted (immediate or scheduled). */
  postCreated(post: { scheduled: boolean; targets: number }): void;
  /** A post began publishing, `latenessMs` after its scheduled time (or its creation). */
  publishStarted(latenessMs: number): void;
  /** A target reached its end. */
  targetFinished(platform: string, status: 'published' | 'failed', errorCode: string | null): void;
  /** One webhook delivery attempt and what it led to (attempt counts from 1). */
  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', attempt: number): void;
  /** Reads of posts' numbers that ended `outcome` (fresh, stale, gone, unavailable, postponed). */
  metricsRead(platform: string, outcome: string, count: number): void;
  /** A due read started `latenessMs` after it was due. */
  metricsReadLate(latenessMs: number): void;
}
