import type {
  Clock,
  JobContext,
  JobHandlers,
  JobMeta,
  JobResult,
  PublishQueue,
} from '../ports/index.ts';
import { FakeClock } from './clock.ts';

export type JobKind = 'publish' | 'deliver' | 'unpublish';

export interface FakeJob {
  kind: JobKind;
  /** Post id or delivery id (the job id, which makes re-adding a no-op, per kind). */
  id: string;
  runAt: Date;
  attempt: number;
  /** Retries that did not spend an attempt. */
  waits: number;
  active: boolean;
  requestId?: string;
}

export interface EnqueueCall {
  kind: JobKind;
  id: string;
  runAt: Date | null;
  requestId?: string;
}

/** What the queue does after a handler throws (the port leaves it to the adapter). */
export const FAKE_QUEUE_ERROR_BACKOFF_MS = 1_000;

/**
 * The queue port in memory, with a way to run due jobs through real handlers. Records every
 * enqueue and cancel call; `failEnqueues` makes enqueue calls throw, as an unreachable Redis would.
 */
export class FakeQueue implements PublishQueue {
  readonly kind = 'inprocess';
  readonly jobs = new Map<string, FakeJob>();
  readonly enqueued: EnqueueCall[] = [];
  readonly cancelled: string[] = [];
  /** Jobs that returned retry (or threw) on their last attempt and were given up. */
  readonly dropped: FakeJob[] = [];
  readonly results: Array<{
    kind: JobKind;
    id: string;
    attempt: number;
    result: JobResult | Error;
  }> = [];
  maxAttempts = 5;
  healthy = true;
  /** Number of upcoming enqueue calls that throw. */
  failEnqueues = 0;
  closed = false;
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #add(kind: JobKind, id: string, runAt: Date | null, meta: JobMeta = {}): void {
    const requestId = meta.requestId === undefined ? {} : { requestId: meta.requestId };
    this.enqueued.push({ kind, id, runAt, ...requestId });
    if (this.failEnqueues > 0) {
      this.failEnqueues--;
      throw new Error('queue unavailable');
    }
    const key = `${kind}:${id}`;
    if (this.jobs.has(key)) return;
    const now = this.#clock.now();
    const at = runAt && runAt.getTime() > now.getTime() ? runAt : now;
    this.jobs.set(key, {
      kind,
      id,
      runAt: new Date(at),
      attempt: 1,
      waits: 0,
      active: false,
      ...requestId,
    });
  }

  async enqueuePublish(postId: string, runAt: Date | null, meta?: JobMeta): Promise<void> {
    this.#add('publish', postId, runAt, meta);
  }

  async enqueueUnpublish(postId: string, runAt: Date | null, meta?: JobMeta): Promise<void> {
    this.#add('unpublish', postId, runAt, meta);
  }

  async enqueueDelivery(deliveryId: string, runAt: Date | null, meta?: JobMeta): Promise<void> {
    this.#add('deliver', deliveryId, runAt, meta);
  }

  async cancelPublish(postId: string): Promise<boolean> {
    const key = `publish:${postId}`;
    const job = this.jobs.get(key);
    if (!job || job.active) return false;
    this.jobs.delete(key);
    this.cancelled.push(postId);
    return true;
  }

  async ping(): Promise<boolean> {
    return this.healthy;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Waiting and delayed jobs, soonest first. */
  list(kind?: JobKind): FakeJob[] {
    return [...this.jobs.values()]
      .filter((job) => kind === undefined || job.kind === kind)
      .sort((a, b) => a.runAt.getTime() - b.runAt.getTime());
  }

  has(kind: JobKind, id: string): boolean {
    return this.jobs.has(`${kind}:${id}`);
  }

  async #run(job: FakeJob, handlers: JobHandlers, signal: AbortSignal): Promise<void> {
    job.active = true;
    const ctx: JobContext = {
      attempt: job.attempt,
      maxAttempts: this.maxAttempts,
      waits: job.waits,
      signal,
      ...(job.requestId === undefined ? {} : { requestId: job.requestId }),
    };
    let result: JobResult | Error;
    try {
      result = await handlers[job.kind](job.id, ctx);
    } catch (error) {
      result = error instanceof Error ? error : new Error(String(error));
    }
    job.active = false;
    this.results.push({ kind: job.kind, id: job.id, attempt: job.attempt, result });
    const key = `${job.kind}:${job.id}`;
    if (!(result instanceof Error) && result.kind === 'done') {
      this.jobs.delete(key);
      return;
    }
    const spends = result instanceof Error || result.spendsAttempt !== false;
    if (spends && job.attempt >= this.maxAttempts) {
      this.jobs.delete(key);
      this.dropped.push(job);
      return;
    }
    const delay = result instanceof Error ? FAKE_QUEUE_ERROR_BACKOFF_MS : result.delayMs;
    if (spends) job.attempt += 1;
    else job.waits += 1;
    job.runAt = new Date(this.#clock.now().getTime() + delay);
  }

  /** Runs, one after another, every job due now. Returns how many ran. */
  async runDue(
    handlers: JobHandlers,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<number> {
    const now = this.#clock.now().getTime();
    const due = this.list().filter((job) => job.runAt.getTime() <= now);
    for (const job of due) await this.#run(job, handlers, signal);
    return due.length;
  }

  /**
   * Runs jobs until none is left, moving a FakeClock forward to each next delayed job.
   * Stops after `maxRuns` jobs so a job that never finishes cannot hang a test.
   */
  async drain(handlers: JobHandlers, options: { maxRuns?: number } = {}): Promise<number> {
    const maxRuns = options.maxRuns ?? 1_000;
    let runs = 0;
    while (this.jobs.size > 0 && runs < maxRuns) {
      const next = this.list()[0];
      if (!next) break;
      const wait = next.runAt.getTime() - this.#clock.now().getTime();
      if (wait > 0) {
        if (!(this.#clock instanceof FakeClock)) break;
        this.#clock.advance(wait);
      }
      runs += await this.runDue(handlers);
    }
    return runs;
  }
}
