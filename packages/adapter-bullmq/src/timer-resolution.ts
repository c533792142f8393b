/**
 * BullMQ starts a delayed job (a scheduled post, a retry) when Redis times out the worker's
 * blocking call, and Redis looks at its timeouts `hz` times a second: at Redis's default of 10,
 * a scheduled post can start up to 100 ms after its time (BENCHMARKS.md measures it). Said
 * once at start, so that the operator reads it in the log rather than in a complaint.
 */
import type { Logger } from '@social-publisher/domain';

type InfoClient = { info(section: string): Promise<string> };

/** Below this, a delayed job can start more than 20 ms late. */
const ENOUGH_HZ = 50;

/** `configured_hz` (what the operator set; `hz` moves with dynamic-hz), else `hz`. */
export function redisHz(infoServer: string): number | null {
  const text = /^configured_hz:(\d+)/m.exec(infoServer)?.[1] ?? /^hz:(\d+)/m.exec(infoServer)?.[1];
  return text === undefined ? null : Number(text);
}

/**
 * Warns when the Redis the workers block on checks its timeouts too rarely. A Redis that
 * refuses INFO (some managed ones) or answers without hz is not warned about.
 */
export async function warnOnCoarseRedisTimers(
  client: InfoClient | Promise<InfoClient>,
  logger: Logger,
): Promise<void> {
  let hz: number | null;
  try {
    hz = redisHz(await (await client).info('server'));
  } catch {
    return;
  }
  if (hz === null || hz <= 0 || hz >= ENOUGH_HZ) return;
  const lateByUpToMs = Math.round(1000 / hz);
  logger.warn(
    { hz, lateByUpToMs },
    `Redis runs at hz ${hz}: a scheduled post can start up to ${lateByUpToMs} ms after its time; run Redis with hz 100 (redis-server --hz 100, or CONFIG SET hz 100)`,
  );
}
