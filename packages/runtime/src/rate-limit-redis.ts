import { Redis } from 'ioredis';

/**
 * A dedicated connection for rate limiting. Commands fail fast while Redis is unreachable (no
 * offline queue, one retry), so the limiter lets requests through instead of hanging them;
 * connection errors are left to the limiter's own (throttled) warning. Start-up waits up to
 * `readyTimeoutMs` for the first connection, then goes on either way.
 */
export async function connectRateLimitRedis(url: string, readyTimeoutMs = 2_000): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
  });
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
