import type { Logger } from '@social-publisher/domain';
import { describe, expect, it } from 'vitest';
import { redisHz, warnOnCoarseRedisTimers } from '../src/timer-resolution.ts';

function recordingLogger() {
  const warnings: Array<{ obj: object; msg: string | undefined }> = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (obj, msg) => warnings.push({ obj, msg }),
    error() {},
  };
  return { logger, warnings };
}

const infoOf = (lines: string[]) => ({ info: async () => `# Server\r\n${lines.join('\r\n')}\r\n` });

describe('Redis timer resolution (hz)', () => {
  it('reads configured_hz (what was set), else hz (which dynamic-hz moves)', () => {
    expect(redisHz('redis_version:7.0.15\r\nhz:40\r\nconfigured_hz:10\r\n')).toBe(10);
    expect(redisHz('redis_version:5.0.0\r\nhz:100\r\n')).toBe(100);
    expect(redisHz('redis_version:7.0.15\r\n')).toBeNull();
  });

  it('warns once at hz 10, saying how late a scheduled post can start and what to set', async () => {
    const { logger, warnings } = recordingLogger();
    await warnOnCoarseRedisTimers(infoOf(['hz:10', 'configured_hz:10']), logger);
    expect(warnings).toEqual([
      {
        obj: { hz: 10, lateByUpToMs: 100 },
        msg: 'Redis runs at hz 10: a scheduled post can start up to 100 ms after its time; run Redis with hz 100 (redis-server --hz 100, or CONFIG SET hz 100)',
      },
    ]);
  });

  it('says nothing at hz 50 or more, without hz, or when INFO is refused', async () => {
    const { logger, warnings } = recordingLogger();
    await warnOnCoarseRedisTimers(infoOf(['hz:100', 'configured_hz:100']), logger);
    await warnOnCoarseRedisTimers(infoOf(['configured_hz:50']), logger);
    await warnOnCoarseRedisTimers(infoOf(['redis_version:7.0.15']), logger);
    await warnOnCoarseRedisTimers(
      {
        info: async () => {
          throw new Error("ERR unknown command 'INFO'");
        },
      },
      logger,
    );
    expect(warnings).toEqual([]);
  });
});
