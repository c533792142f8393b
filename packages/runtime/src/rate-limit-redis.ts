import type { RedisConnectionInput } from '@social-publisher/adapter-bullmq';
import type { RedisEndpoint } from '@social-publisher/config';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** How ioredis reaches the configured Redis: its URL, or its sentinels and master name. */
export function redisConnectionOf(endpoint: RedisEndpoint): RedisConnectionInput {
  if (endpoint.kind === 'url') return endpoint.url;
  if (endpoint.kind === 'cluster') {
    return {
      cluster: endpoint.nodes,
      options: {
        redisOptions: {
          ...(endpoint.password === null ? {} : { password: endpoint.password }),
          ...(endpoint.tls ? { tls: {} } : {}),
        },
      },
    };
  }
  return {
    sentinels: endpoint.sentinels,
    name: endpoint.master,
    ...(endpoint.password === null ? {} : { password: endpoint.password }),
    ...(endpoint.sentinelPassword === null ? {} : { sentinelPassword: endpoint.sentinelPassword }),
    ...(endpoint.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
  };
}

/**
 * A dedicated connection for rate limiting. Commands fail fast while Redis is unreachable (no
 * offline queue, one retry), so the limiter lets requests through instead of hanging them;
 * connection errors are left to the limiter's own (throttled) warning. Start-up waits up to
 * `readyTimeoutMs` for the first connection, then goes on either way.
 */
export async function connectRateLimitRedis(
  connection: RedisConnectionInput,
  readyTimeoutMs = 2_000,
): Promise<Redis | Cluster> {
  const failFast: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
  };
  const client =
    typeof connection === 'string'
      ? new Redis(connection, failFast)
      : 'cluster' in connection
        ? new Cluster(connection.cluster, {
            ...connection.options,
            enableOfflineQueue: false,
            redisOptions: { ...connection.options?.redisOptions, ...failFast },
          })
        : new Redis({ ...connection, ...failFast });
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise((resolve) => client.once('ready', resolve)),
    new Promise((resolve) => {
      timer = setTimeout(resolve, readyTimeoutMs);
    }),
  ]);
  clearTimeout(timer);
  return client;
}
