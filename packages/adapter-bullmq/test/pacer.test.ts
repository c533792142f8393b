import { createRedisPacer } from '@social-publisher/adapter-bullmq';
import { describePacerContract } from '@social-publisher/domain/contracts/pacer';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { deleteKeys, newPrefix, REDIS_URL, redisUnavailableReason } from './helpers.ts';

const skip = await redisUnavailableReason();

describe.skipIf(skip !== undefined)(`Redis pacer${skip ? ` (skipped: ${skip})` : ''}`, () => {
  describePacerContract('redis', async () => {
    const prefix = newPrefix();
    const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const pacer = createRedisPacer(client, `${prefix}:pace:`);
    return {
      pacer,
      teardown: async () => {
        client.disconnect();
        await deleteKeys(prefix);
      },
    };
  });

  it('two processes share one budget, and its keys expire once nothing in them counts', async () => {
    const prefix = newPrefix();
    const a = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const b = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const one = createRedisPacer(a, `${prefix}:pace:`);
      const two = createRedisPacer(b, `${prefix}:pace:`);
      const limit = { count: 2, windowMs: 1_000 };
      const now = new Date();
      const decisions = await Promise.all([
        one.take('tiktok:c1', limit, 'h1', now),
        two.take('tiktok:c1', limit, 'h2', now),
        one.take('tiktok:c1', limit, 'h3', now),
        two.take('tiktok:c1', limit, 'h4', now),
      ]);
      expect(decisions.filter((d) => d.ok)).toHaveLength(2);
      const ttl = await a.pttl(`${prefix}:pace:{tiktok:c1}:slots`);
      expect(ttl).toBeGreaterThan(0);
      // The last reserved slot (about one window ahead) plus a window, its margin and a second.
      expect(ttl).toBeLessThanOrEqual(1_050 + 1_000 + 50 + 1_000);
    } finally {
      a.disconnect();
      b.disconnect();
      await deleteKeys(prefix);
    }
  });
});
