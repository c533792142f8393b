import { createHash } from 'node:crypto';
import {
  type ConnectionPacer,
  type PaceState,
  paceMarginMs,
  stateOf,
  translateOutage,
} from '@social-publisher/domain';

/** The part of an ioredis client (or Cluster) the pacer uses. */
export interface PacerRedisClient {
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
  evalsha(sha: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

/**
 * One connection's budget, atomically: KEYS[1] a sorted set of slots (member `c:<holder>:<ms>`
 * for a call made, `r:<holder>` for a reserved slot; score = its time in ms), KEYS[2] the time
 * until which the platform refused calls. The same rules as the domain's memory pacer
 * (`nextSlotAt`): a new call goes once fewer than `count` slots lie in the window ending then.
 * Time comes from the caller (ARGV[2]), like every other clock of the service.
 */
export const PACE_SCRIPT = `
local slots, block = KEYS[1], KEYS[2]
local op, now = ARGV[1], tonumber(ARGV[2])
local blocked = tonumber(redis.call('GET', block) or '0')
if op == 'observe' then
  local untilAt = tonumber(ARGV[3])
  if untilAt > blocked and untilAt > now then
    redis.call('SET', block, untilAt, 'PX', untilAt - now + 1000)
  end
  return 1
end
local count, window, margin = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now - window - margin)
if op == 'state' then
  local scores = redis.call('ZRANGE', slots, 0, -1, 'WITHSCORES')
  local times = {}
  for i = 2, #scores, 2 do times[#times + 1] = tonumber(scores[i]) end
  return { blocked, times }
end
local holder = ARGV[6]
local function keep()
  local last = redis.call('ZRANGE', slots, -1, -1, 'WITHSCORES')
  if last[2] then
    redis.call('PEXPIRE', slots, math.max(1, tonumber(last[2]) - now) + window + margin + 1000)
  end
end
local function call(at)
  redis.call('ZADD', slots, at, 'c:' .. holder .. ':' .. now)
  keep()
  return { 1, 0 }
end
local member = 'r:' .. holder
local reserved = redis.call('ZSCORE', slots, member)
if reserved then
  reserved = tonumber(reserved)
  redis.call('ZREM', slots, member)
  if reserved >= blocked then
    if reserved > now + margin / 2 then
      redis.call('ZADD', slots, reserved, member)
      return { 0, reserved }
    end
    return call(math.max(now, reserved))
  end
end
local at = now
local n = redis.call('ZCARD', slots)
if n >= count then
  local kth = redis.call('ZRANGE', slots, n - count, n - count, 'WITHSCORES')
  at = math.max(now, tonumber(kth[2]) + window + margin)
end
at = math.max(at, blocked)
if at <= now then return call(now) end
redis.call('ZADD', slots, at, member)
keep()
return { 0, at }
`;

const SHA = createHash('sha1').update(PACE_SCRIPT).digest('hex');

/**
 * The pacer shared by every process through Redis: one Lua script per decision, so two workers
 * can never hand out the same slot. A connection's two keys share a hash tag (one Cluster slot).
 */
export function createRedisPacer(
  client: PacerRedisClient,
  prefix = 'sp:pace:',
  close: () => Promise<void> = async () => {},
): ConnectionPacer {
  const keys = (key: string): [string, string] => [
    `${prefix}{${key}}:slots`,
    `${prefix}{${key}}:block`,
  ];
  const script = async (key: string, args: Array<string | number>): Promise<unknown> => {
    try {
      return await client.evalsha(SHA, 2, ...keys(key), ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return client.eval(PACE_SCRIPT, 2, ...keys(key), ...args);
    }
  };
  // Every call to Redis passes here: Redis unreachable leaves as DependencyUnavailableError.
  const run = async (key: string, ...args: Array<string | number>): Promise<unknown> => {
    try {
      return await script(key, args);
    } catch (error) {
      throw translateOutage('pacer', error);
    }
  };
  const pair = (reply: unknown): [unknown, unknown] => {
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new Error('unexpected reply from the pacing script');
    }
    return [reply[0], reply[1]];
  };
  return {
    async take(key, limit, holder, now) {
      const [ok, at] = pair(
        await run(
          key,
          'take',
          now.getTime(),
          limit.count,
          limit.windowMs,
          paceMarginMs(limit),
          holder,
        ),
      );
      return Number(ok) === 1 ? { ok: true } : { ok: false, retryAt: new Date(Number(at)) };
    },
    async observe(key, until, now) {
      await run(key, 'observe', now.getTime(), until.getTime());
    },
    async state(key, limit, now): Promise<PaceState> {
      const [blocked, times] = pair(
        await run(key, 'state', now.getTime(), limit.count, limit.windowMs, paceMarginMs(limit)),
      );
      const slots = Array.isArray(times) ? times.map(Number) : [];
      return stateOf(slots, Number(blocked), limit, now.getTime());
    },
    close,
  };
}
