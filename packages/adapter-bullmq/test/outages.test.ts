// The queue adapter reports Redis unreachable as the domain's DependencyUnavailableError (the
// API answers 503 for it, the worker waits it out); a refusal of the command itself is not one.
import { createBullmqQueue, createRedisPacer } from '@social-publisher/adapter-bullmq';
import { DependencyUnavailableError } from '@social-publisher/domain';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../testkit/src/index.ts';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
const limit = { count: 2, windowMs: 1_000 };

describe('outages of the queue adapter', () => {
  it('the producer on a closed port rejects with an outage of the queue', async () => {
    const queue = createBullmqQueue({
      connection: `redis://127.0.0.1:${await freePort()}`,
      prefix: 'sptest-outage',
      connectWaitMs: 200,
    });
    try {
      const error = await queue.enqueuePublish('post-1', null).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect((error as DependencyUnavailableError).dependency).toBe('queue');
      expect((error as Error).message).toMatch(/^the queue is unreachable: /);
    } finally {
      await queue.close();
    }
  });

  it('the pacer reports a refused connection as an outage of the pacer, the original as cause', async () => {
    const cause = refused();
    const pacer = createRedisPacer({
      evalsha: () => Promise.reject(cause),
      eval: () => Promise.reject(new Error('not reached')),
    });
    const error = await pacer
      .take('key', limit, 'holder', new Date())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).dependency).toBe('pacer');
    expect((error as Error).cause).toBe(cause);
  });

  it("the pacer passes on Redis's refusal of a command as it came", async () => {
    const refusal = new Error('ERR wrong number of arguments');
    const pacer = createRedisPacer({
      evalsha: () => Promise.reject(refusal),
      eval: () => Promise.reject(new Error('not reached')),
    });
    await expect(pacer.observe('key', new Date(), new Date())).rejects.toBe(refusal);
  });
});
