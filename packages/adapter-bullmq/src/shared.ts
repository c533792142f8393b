import { errorMessage, type Logger, positiveIntOption } from '@social-publisher/domain';
import type { ClusterOptions, RedisOptions } from 'ioredis';

/** Queue of publish jobs (job id = post id). */
export const PUBLISH_QUEUE = 'publish';
/** Queue of unpublish jobs (job id = post id: a UUID, no ':' that BullMQ's ids refuse). */
export const UNPUBLISH_QUEUE = 'unpublish';
/** Queue of webhook delivery jobs (job id = delivery id). */
export const DELIVERY_QUEUE = 'webhook-delivery';
/** Default key prefix. Use a hash tag such as `{sp}` on Redis Cluster. */
export const DEFAULT_PREFIX = 'sp';

/** Job data: ids and the attempt counter only, never secrets or tokens. */
export interface PublishJobData {
  postId: string;
  attempt: number;
  /** Retries that did not spend an attempt (rate-limit waits); absent = 0. */
  waits?: number;
  /** The HTTP request that caused the job, for its log lines. */
  requestId?: string;
  /** The W3C traceparent of the enqueue, when tracing is on: the job's span continues it. */
  traceparent?: string;
}

/** An unpublish job carries what a publish job does: the post id and the counters. */
export type UnpublishJobData = PublishJobData;

export interface DeliveryJobData {
  deliveryId: string;
  attempt: number;
  waits?: number;
  requestId?: string;
  traceparent?: string;
}

/** A Redis Cluster: its seed nodes, and ioredis Cluster options (password/TLS in redisOptions). */
export interface RedisClusterInput {
  cluster: Array<{ host: string; port: number }>;
  options?: ClusterOptions;
}

/**
 * A `redis://` / `rediss://` URL; ioredis options (optionally with a `url`; `sentinels` and
 * `name` for Redis Sentinel); or a Redis Cluster.
 */
export type RedisConnectionInput = string | (RedisOptions & { url?: string }) | RedisClusterInput;

export const isCluster = (input: RedisConnectionInput): input is RedisClusterInput =>
  typeof input === 'object' && 'cluster' in input;

/**
 * The key prefix of the queues (DEFAULT_PREFIX unless given). On a cluster every key BullMQ's
 * scripts touch together must hash to one slot: a prefix without a hash tag gets one
 * (`sp` -> `{sp}`).
 */
export function keyPrefix(options: { prefix?: string; connection: RedisConnectionInput }): string {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  return isCluster(options.connection) && !/\{[^}]+\}/.test(prefix) ? `{${prefix}}` : prefix;
}

/**
 * Logs a recurring error (for example "connection refused" while Redis is down) at most once
 * per `everyMs`, with the number of occurrences swallowed in between.
 */
export function throttledErrorLog(logger: Logger, msg: string, everyMs = 30_000) {
  let last = 0;
  let suppressed = 0;
  return (error: unknown, fields: object = {}) => {
    const now = Date.now();
    if (now - last < everyMs) {
      suppressed += 1;
      return;
    }
    last = now;
    logger.warn({ ...fields, err: errorMessage(error), suppressed }, msg);
    suppressed = 0;
  };
}

export const positiveInt = (name: string, value: number | undefined, fallback: number): number =>
  positiveIntOption('bullmq adapter', name, value, fallback);

/** Rejects with `message` after `ms`, unless `promise` settles first. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
