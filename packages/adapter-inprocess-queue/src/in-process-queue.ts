/**
 * The queue port in memory, for the embedded mode (API and worker in one process).
 *
 * One object is both the producer (PublishQueue) and the consumer (QueueConsumer). Jobs live in
 * this process only: nothing is durable, so after a restart the reconciler rebuilds the queue
 * from the database (due posts and pending deliveries are enqueued again; the job id dedupe
 * makes that safe). Semantics match the BullMQ adapter:
 * - one job per id and kind (publish and unpublish: post id, deliver: delivery id); enqueueing an id that is
 *   waiting, delayed or active is a no-op; once the job finished (done or dropped) the id can be
 *   enqueued again;
 * - delays use timers; delays longer than a Node timer allows (2^31-1 ms, ~24.8 days) re-arm;
 * - bounded concurrency per kind;
 * - a `{ kind: 'retry', delayMs }` result runs the same job again after `delayMs` with
 *   `attempt + 1`; a thrown exception retries with exponential backoff and jitter; after
 *   `maxAttempts` attempts the job is dropped (logged);
 * - close() stops taking jobs, drops the waiting and delayed ones (the reconciler re-adds
 *   them at the next start), waits for the in-flight handlers, and aborts their signal after
 *   `shutdownGraceMs`.
 */
import {
  type ConsumerTuning,
  consoleLogger,
  errorMessage,
  type JobContext,
  type JobHandlers,
  type JobMeta,
  type Logger,
  type PublishQueue,
  positiveIntOption,
  type QueueConsumer,
  runJobAttempt,
} from '@social-publisher/domain';
import { inEnqueueSpan, inJobSpan, type TraceCarrier } from '@social-publisher/telemetry';

export interface InProcessQueueOptions extends ConsumerTuning {
  /** close(): how long in-flight handlers may run before their signal is aborted (default 10 s). */
  shutdownGraceMs?: number;
  /** close(): how much longer to wait after the abort before giving up on them (default 10 s). */
  shutdownTimeoutMs?: number;
  logger?: Logger;
}

export interface InProcessQueueStats {
  waiting: number;
  delayed: number;
  active: number;
}

export interface InProcessQueue extends PublishQueue, QueueConsumer {
  /** Closes both sides (the producer and the consumer are the same object). */
  close(): Promise<void>;
  stats(): {
    publish: InProcessQueueStats;
    deliver: InProcessQueueStats;
    unpublish: InProcessQueueStats;
  };
}

type Kind = 'publish' | 'deliver' | 'unpublish';

/** The queues' names, as BullMQ's: the same metrics series and span names in both modes. */
const QUEUE_NAMES: Record<Kind, string> = {
  publish: 'publish',
  deliver: 'webhook-delivery',
  unpublish: 'unpublish',
};
/** `messaging.system` of this queue's spans. */
const SYSTEM = 'in-process';

interface Entry {
  id: string;
  attempt: number;
  /** Retries that did not spend an attempt (rate-limit waits). */
  waits: number;
  state: 'waiting' | 'delayed' | 'active';
  runAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The HTTP request that caused the job, for its log lines. */
  requestId: string | undefined;
  /** The enqueue's W3C traceparent (tracing on): every attempt's span continues it. */
  traceparent: string | undefined;
}

interface Lane {
  kind: Kind;
  limit: number;
  maxAttempts: number;
  jobs: Map<string, Entry>;
  /** FIFO of waiting entries (a Set keeps insertion order and deletes in O(1)). */
  waiting: Set<Entry>;
  active: number;
}

/** Longest delay a Node timer accepts; longer ones fire after 1 ms, so we re-arm instead. */
export const MAX_TIMER_MS = 2_147_483_647;

const positiveInt = (name: string, value: number | undefined, fallback: number): number =>
  positiveIntOption('in-process queue', name, value, fallback);

export function createInProcessQueue(options: InProcessQueueOptions = {}): InProcessQueue {
  const logger = options.logger ?? consoleLogger;
  const concurrency = positiveInt('concurrency', options.concurrency, 5);
  const retryBaseDelayMs = options.retryBaseDelayMs ?? 2_000;
  const retryMaxDelayMs = options.retryMaxDelayMs ?? 5 * 60_000;
  const shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;

  const lanes: Record<Kind, Lane> = {
    publish: {
      kind: 'publish',
      limit: concurrency,
      maxAttempts: positiveInt('maxPublishAttempts', options.maxPublishAttempts, 6),
      jobs: new Map(),
      waiting: new Set(),
      active: 0,
    },
    deliver: {
      kind: 'deliver',
      limit: positiveInt('deliveryConcurrency', options.deliveryConcurrency, concurrency),
      maxAttempts: positiveInt('maxDeliveryAttempts', options.maxDeliveryAttempts, 20),
      jobs: new Map(),
      waiting: new Set(),
      active: 0,
    },
    // Taking posts down: the publish lane's bounds, in a lane of its own (never blocks publishing).
    unpublish: {
      kind: 'unpublish',
      limit: concurrency,
      maxAttempts: positiveInt('maxPublishAttempts', options.maxPublishAttempts, 6),
      jobs: new Map(),
      waiting: new Set(),
      active: 0,
    },
  };

  let handlers: JobHandlers | undefined;
  let closing = false;
  let closePromise: Promise<void> | undefined;
  const inFlight = new Set<Promise<void>>();
  const controllers = new Set<AbortController>();

  function makeWaiting(lane: Lane, entry: Entry): void {
    entry.timer = undefined;
    entry.state = 'waiting';
    lane.waiting.add(entry);
    pump(lane);
  }

  /** Waits until entry.runAt, in chunks a Node timer accepts. */
  function arm(lane: Lane, entry: Entry): void {
    const remaining = entry.runAt - Date.now();
    if (remaining <= 0) {
      makeWaiting(lane, entry);
      return;
    }
    entry.state = 'delayed';
    entry.timer = setTimeout(() => arm(lane, entry), Math.min(remaining, MAX_TIMER_MS));
  }

  function add(
    lane: Lane,
    id: string,
    runAt: Date | null,
    meta: JobMeta = {},
    bringForward = false,
    trace: TraceCarrier = {},
  ): void {
    if (closing) throw new Error('in-process queue is closed');
    if (typeof id !== 'string' || id.length === 0) {
      throw new Error(`in-process queue: invalid ${lane.kind} job id`);
    }
    const existing = lane.jobs.get(id);
    if (existing) {
      const wanted = runAt ? runAt.getTime() : Date.now();
      // Same rule as the BullMQ adapter: only "now" brings a delayed delivery forward.
      if (
        bringForward &&
        runAt === null &&
        existing.state === 'delayed' &&
        wanted < existing.runAt
      ) {
        if (existing.timer) clearTimeout(existing.timer);
        existing.runAt = wanted;
        arm(lane, existing);
      }
      return;
    }
    const entry: Entry = {
      id,
      attempt: 1,
      waits: 0,
      state: 'waiting',
      runAt: runAt ? runAt.getTime() : Date.now(),
      timer: undefined,
      requestId: meta.requestId,
      traceparent: trace.traceparent,
    };
    if (Number.isNaN(entry.runAt)) throw new Error('in-process queue: invalid runAt');
    lane.jobs.set(id, entry);
    arm(lane, entry);
  }

  function retire(lane: Lane, entry: Entry): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    lane.waiting.delete(entry);
    if (lane.jobs.get(entry.id) === entry) lane.jobs.delete(entry.id);
  }

  function pump(lane: Lane): void {
    if (!handlers || closing) return;
    while (lane.active < lane.limit) {
      const next = lane.waiting.values().next();
      if (next.done) return;
      lane.waiting.delete(next.value);
      run(lane, next.value);
    }
  }

  function run(lane: Lane, entry: Entry): void {
    entry.state = 'active';
    lane.active += 1;
    const controller = new AbortController();
    controllers.add(controller);
    const job = execute(lane, entry, controller.signal)
      .catch((error: unknown) => {
        // execute() handles handler errors; anything here is a bug of ours: drop the job.
        logger.error({ kind: lane.kind, id: entry.id, err: errorMessage(error) }, 'queue failure');
        retire(lane, entry);
      })
      .finally(() => {
        controllers.delete(controller);
        inFlight.delete(job);
        lane.active -= 1;
        pump(lane);
      });
    inFlight.add(job);
  }

  async function execute(lane: Lane, entry: Entry, signal: AbortSignal): Promise<void> {
    const current = handlers;
    if (!current) throw new Error('no handlers');
    const ctx: JobContext = {
      attempt: entry.attempt,
      maxAttempts: lane.maxAttempts,
      waits: entry.waits,
      signal,
      ...(entry.requestId === undefined ? {} : { requestId: entry.requestId }),
    };
    const log = {
      kind: lane.kind,
      id: entry.id,
      attempt: entry.attempt,
      ...(entry.requestId === undefined ? {} : { request_id: entry.requestId }),
    };
    const policy = { maxAttempts: lane.maxAttempts, retryBaseDelayMs, retryMaxDelayMs };
    const traced = { id: entry.id, attempt: entry.attempt, traceparent: entry.traceparent };
    const step = await inJobSpan(SYSTEM, QUEUE_NAMES[lane.kind], traced, () =>
      runJobAttempt(
        async () => {
          // Start the handler on a fresh microtask, never inside the enqueue call that woke it.
          await Promise.resolve();
          return current[lane.kind](entry.id, ctx);
        },
        entry.attempt,
        policy,
        logger,
        log,
      ),
    );
    if (step.kind !== 'again') {
      retire(lane, entry);
      return;
    }
    if (closing) {
      // Nothing durable to hand the job back to: the reconciler re-enqueues it at the next start.
      logger.info(
        { ...log, reason: step.reason },
        'retry asked during shutdown; left to reconciler',
      );
      retire(lane, entry);
      return;
    }
    if (step.spendsAttempt) entry.attempt += 1;
    else entry.waits += 1;
    entry.runAt = Date.now() + step.delayMs;
    arm(lane, entry);
  }

  function cancel(lane: Lane, id: string): boolean {
    const entry = lane.jobs.get(id);
    if (!entry || entry.state === 'active') return false;
    retire(lane, entry);
    return true;
  }

  async function shutdown(): Promise<void> {
    closing = true;
    for (const lane of Object.values(lanes)) {
      for (const entry of [...lane.jobs.values()]) {
        if (entry.state !== 'active') retire(lane, entry);
      }
    }
    if (inFlight.size === 0) return;
    const graceTimer = setTimeout(() => {
      for (const controller of controllers) {
        controller.abort(new Error('queue is shutting down'));
      }
    }, shutdownGraceMs);
    let hardTimer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      hardTimer = setTimeout(() => resolve('timeout'), shutdownGraceMs + shutdownTimeoutMs);
    });
    const outcome = await Promise.race([Promise.allSettled([...inFlight]), gaveUp]);
    clearTimeout(graceTimer);
    clearTimeout(hardTimer);
    if (outcome === 'timeout') {
      logger.error(
        { inFlight: inFlight.size },
        'in-process queue closed with handlers still running',
      );
    }
  }

  function laneStats(lane: Lane): InProcessQueueStats {
    let delayed = 0;
    for (const entry of lane.jobs.values()) if (entry.state === 'delayed') delayed += 1;
    return { waiting: lane.waiting.size, delayed, active: lane.active };
  }

  return {
    kind: 'inprocess',
    async enqueuePublish(postId, runAt, meta) {
      await inEnqueueSpan(SYSTEM, QUEUE_NAMES.publish, postId, async (trace) =>
        add(lanes.publish, postId, runAt, meta, false, trace),
      );
    },
    async cancelPublish(postId) {
      return cancel(lanes.publish, postId);
    },
    async enqueueUnpublish(postId, runAt, meta) {
      await inEnqueueSpan(SYSTEM, QUEUE_NAMES.unpublish, postId, async (trace) =>
        add(lanes.unpublish, postId, runAt, meta, false, trace),
      );
    },
    async enqueueDelivery(deliveryId, runAt, meta) {
      await inEnqueueSpan(SYSTEM, QUEUE_NAMES.deliver, deliveryId, async (trace) =>
        add(lanes.deliver, deliveryId, runAt, meta, true, trace),
      );
    },
    async prometheusMetrics() {
      // The same series BullMQ exports, so one dashboard serves both modes. Failed jobs are
      // not kept in memory (their outcome is in the database): always 0 here.
      const lines = [
        '# HELP bullmq_job_count Number of jobs in the queue by state',
        '# TYPE bullmq_job_count gauge',
      ];
      for (const lane of Object.values(lanes)) {
        let delayed = 0;
        for (const entry of lane.jobs.values()) if (entry.state === 'delayed') delayed += 1;
        const counts = { waiting: lane.waiting.size, active: lane.active, delayed, failed: 0 };
        for (const [state, count] of Object.entries(counts)) {
          lines.push(
            `bullmq_job_count{queue="${QUEUE_NAMES[lane.kind]}",state="${state}"} ${count}`,
          );
        }
      }
      return `${lines.join('\n')}\n`;
    },

    async ping() {
      return !closing;
    },
    async start(jobHandlers) {
      if (closing) throw new Error('in-process queue is closed');
      if (handlers) throw new Error('in-process queue already started');
      handlers = jobHandlers;
      for (const lane of Object.values(lanes)) pump(lane);
    },
    close() {
      closePromise ??= shutdown();
      return closePromise;
    },
    stats() {
      return {
        publish: laneStats(lanes.publish),
        deliver: laneStats(lanes.deliver),
        unpublish: laneStats(lanes.unpublish),
      };
    },
  };
}
