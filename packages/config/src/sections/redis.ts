/** The shared Redis (queue, pacer, limits) and how the queue is tuned. */
import type { Env } from '../env-readers.ts';

export type RedisEndpoint =
  | { kind: 'url'; url: string }
  | {
      kind: 'cluster';
      nodes: Array<{ host: string; port: number }>;
      /** REDIS_PASSWORD: the nodes' password. */
      password: string | null;
      /** REDIS_TLS: talk TLS to the nodes (managed clusters usually want it). */
      tls: boolean;
    }
  | {
      kind: 'sentinel';
      sentinels: Array<{ host: string; port: number }>;
      /** The monitored master's name. */
      master: string;
      /** REDIS_PASSWORD: the data nodes' password. */
      password: string | null;
      /** REDIS_SENTINEL_PASSWORD: the sentinels' own, when they have one. */
      sentinelPassword: string | null;
      /** REDIS_TLS: talk TLS to the sentinels and the nodes. */
      tls: boolean;
    };

export interface RedisConfig {
  /** Unset: the in-process queue (API and worker in one process). */
  redisUrl: string | null;
  /**
   * The shared Redis, however it is reached: REDIS_URL, or REDIS_SENTINELS with
   * REDIS_SENTINEL_MASTER (failover through Redis Sentinel). null: the in-process queue.
   */
  redis: RedisEndpoint | null;
  queuePrefix: string;
  /** BullMQ consumer timings (tests shorten them to recover a killed worker's jobs quickly). */
  queueTuning: {
    /** QUEUE_STALLED_INTERVAL_MS: how often a worker looks for jobs whose worker died. */
    stalledIntervalMs?: number;
    /** QUEUE_LOCK_DURATION_MS: how long a job's lock lives without renewal. */
    lockDurationMs?: number;
  };
}

export function readRedisSection(e: Env): RedisConfig {
  const redisUrl = e.url('REDIS_URL', ['redis:', 'rediss:']);
  return {
    redisUrl,
    redis: readRedis(e, redisUrl),
    queuePrefix: e.string('QUEUE_PREFIX') ?? 'sp',
    queueTuning: {
      ...optionalMs(e, 'QUEUE_STALLED_INTERVAL_MS', 'stalledIntervalMs'),
      ...optionalMs(e, 'QUEUE_LOCK_DURATION_MS', 'lockDurationMs'),
    },
  };
}

/** `host:port,host:port,...` as a list, or the problem with it (reported under `name`). */
function readHostPorts(
  e: Env,
  name: string,
  list: string,
): Array<{ host: string; port: number }> | null {
  const hosts: Array<{ host: string; port: number }> = [];
  for (const entry of list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([^:\s]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65535) {
      return e.report(name, `must be host:port,host:port..., got "${entry}"`, null);
    }
    hosts.push({ host: match[1], port });
  }
  if (hosts.length === 0) return e.report(name, 'must list at least one host:port', null);
  return hosts;
}

/**
 * REDIS_URL, REDIS_CLUSTER_NODES, or REDIS_SENTINELS + REDIS_SENTINEL_MASTER: three ways to
 * reach the shared Redis, one at a time.
 */
function readRedis(e: Env, url: string | null): RedisEndpoint | null {
  const clusterList = e.string('REDIS_CLUSTER_NODES');
  const list = e.string('REDIS_SENTINELS');
  const master = e.string('REDIS_SENTINEL_MASTER');
  const password = e.string('REDIS_PASSWORD');
  const sentinelPassword = e.string('REDIS_SENTINEL_PASSWORD');
  const tls = e.bool('REDIS_TLS', false);
  const ways = [url, clusterList, list].filter((value) => value !== null).length;
  if (ways > 1) {
    return e.report(
      'REDIS_URL',
      'REDIS_CLUSTER_NODES and REDIS_SENTINELS are three ways to reach Redis: set one',
      null,
    );
  }
  if (clusterList !== null) {
    const nodes = readHostPorts(e, 'REDIS_CLUSTER_NODES', clusterList);
    return nodes === null ? null : { kind: 'cluster', nodes, password, tls };
  }
  if (list === null) {
    if (master !== null) e.report('REDIS_SENTINEL_MASTER', 'goes with REDIS_SENTINELS', null);
    return url === null ? null : { kind: 'url', url };
  }
  const sentinels = readHostPorts(e, 'REDIS_SENTINELS', list);
  if (sentinels === null) return null;
  if (master === null) {
    return e.report(
      'REDIS_SENTINEL_MASTER',
      'is required with REDIS_SENTINELS (the master name the sentinels monitor)',
      null,
    );
  }
  return { kind: 'sentinel', sentinels, master, password, sentinelPassword, tls };
}

/** An optional duration (unset: the library's default), as `{ [key]: ms }` or nothing. */
function optionalMs<K extends string>(e: Env, name: string, key: K): Partial<Record<K, number>> {
  if (e.string(name) === null) return {};
  return { [key]: e.int(name, 0, 100, 3_600_000) } as Partial<Record<K, number>>;
}
