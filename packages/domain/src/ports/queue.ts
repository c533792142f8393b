/**
 * The job queue, producer side and consumer side. The database is the truth: the queue only
 * accelerates, and the reconciler re-adds whatever the queue lost. Job data carries ids only,
 * never secrets or tokens.
 */
/**
 * What carries the jobs: `redis` (shared by every process; /health reports it as
 * `checks.redis`, as docs/api.md#health says) or `inprocess` (this process only).
 */
export type QueueKind = 'redis' | 'inprocess';

export interface PublishQueue {
  readonly kind: QueueKind;
  /**
   * Adds the publish job of a post (job id = post id) to run at `runAt` (null or past = now).
   * Re-adding while a job for the post is waiting, delayed or active is a no-op.
   */
  enqueuePublish(postId: string, runAt: Date | null, meta?: JobMeta): Promise<void>;
  /**
   * Adds the unpublish job of a post (job id = post id, on its own queue beside the publish
   * one) to run at `runAt` (null or past = now). Re-adding while it is waiting, delayed or
   * active is a no-op: two asks never race two runs.
   */
  enqueueUnpublish(postId: string, runAt: Date | null, meta?: JobMeta): Promise<void>;
  /** Removes the post's waiting or delayed job. Returns whether one was removed (an active job is left). */
  cancelPublish(postId: string): Promise<boolean>;
  /**
   * Adds the delivery job of a webhook delivery (job id = delivery id). Re-adding is a no-op,
   * except that with `runAt` null (now) a delayed job is brought forward to now: a redeliver
   * must not wait out an old retry backoff.
   */
  enqueueDelivery(deliveryId: string, runAt: Date | null, meta?: JobMeta): Promise<void>;
  /** Whether the queue's backing service answers (GET /health). */
  ping(): Promise<boolean>;
  /**
   * Job counts by queue and state in the Prometheus text format (`bullmq_job_count{queue,
   * state}` gauges, as BullMQ exports them), for /metrics. Optional: test fakes have none.
   */
  prometheusMetrics?(): Promise<string>;
  close(): Promise<void>;
}

/** What a job carries besides its id, for the logs: never secrets or tokens. */
export interface JobMeta {
  /** The HTTP request that caused the job (X-Request-Id), so its log lines can be joined. */
  requestId?: string;
}

export interface JobContext {
  /** 1 for the first run of the job, 2 for its first retry... */
  attempt: number;
  /** After this attempt the queue gives up on the job: the handler must finish it for good. */
  maxAttempts: number;
  /**
   * How many times the job waited without spending an attempt (`spendsAttempt: false`, e.g. a
   * platform's rate limit). The handler bounds it: a wait is not a reason to run forever.
   */
  waits: number;
  /** Aborted on shutdown: the handler should hand its work back quickly. */
  signal: AbortSignal;
  /** The request that caused the job, when it was enqueued with one (reconciled jobs have none). */
  requestId?: string;
}

/**
 * What a handler tells the queue: finished, or run the same job again after a delay. A retry
 * spends an attempt unless `spendsAttempt` is false (waiting out a platform's rate limit is not
 * a failure); such a wait counts in `JobContext.waits` instead.
 */
export type JobResult =
  | { kind: 'done' }
  | { kind: 'retry'; delayMs: number; reason: string; spendsAttempt?: boolean };

export interface JobHandlers {
  publish(postId: string, ctx: JobContext): Promise<JobResult>;
  deliver(deliveryId: string, ctx: JobContext): Promise<JobResult>;
  /** Takes a post's `removing` targets down (job id = post id). */
  unpublish(postId: string, ctx: JobContext): Promise<JobResult>;
}

/**
 * The consumer side. An unexpected exception from a handler counts as a retry with the
 * adapter's default backoff; after `maxAttempts` the job is dropped (the reconciler and the
 * handlers' own last-attempt logic make sure no post or delivery is left hanging).
 */
/** How a consumer runs jobs: the tunables every queue adapter takes, with the same defaults. */
export interface ConsumerTuning {
  /** Publish jobs (and, apart, unpublish jobs) run at the same time by this process (default 5). */
  concurrency?: number;
  /** Delivery jobs run at the same time by this process (default: `concurrency`). */
  deliveryConcurrency?: number;
  /** Attempts of a publish (or unpublish) job before it is dropped (default 6). */
  maxPublishAttempts?: number;
  /** Attempts of a delivery job before it is dropped (default 20). */
  maxDeliveryAttempts?: number;
  /** First backoff after a thrown exception; doubles each attempt, with jitter (default 2 s). */
  retryBaseDelayMs?: number;
  /** Cap of that backoff (default 5 min). */
  retryMaxDelayMs?: number;
}

export interface QueueConsumer {
  start(handlers: JobHandlers): Promise<void>;
  /** Stops taking jobs, lets in-flight ones finish or hands them back, closes connections. */
  close(): Promise<void>;
}
