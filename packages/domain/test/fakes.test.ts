import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord, JobHandlers, JobResult } from '../src/index.ts';
import {
  ConstraintError,
  createTestDeps,
  FakeClock,
  FakeQueue,
  MemoryLogger,
  memoryStorageTesting,
  ScriptedPublisher,
  SequentialIds,
  seedUser,
  silentLogger,
} from '../src/testing/index.ts';

describe('MemoryUnitOfWork', () => {
  it('commits on success and rolls everything back on throw', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    await expect(
      deps.uow.run(async (repos) => {
        await repos.accounts.createAccount({
          id: 'team-1',
          kind: 'team',
          name: 't',
          approvalRequired: false,
          createdAt: deps.clock.now(),
        });
        await repos.apiKeys.delete(alice.apiKey.id);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await deps.repos.accounts.findAccountById('team-1')).toBeNull();
    expect(await deps.repos.apiKeys.findById(alice.apiKey.id)).not.toBeNull();
    expect(deps.uow.rollbacks).toBe(1);
    expect(await deps.uow.run(async () => 42)).toBe(42);
    expect(deps.uow.commits).toBeGreaterThan(0);
  });

  it('runs units of work one at a time', async () => {
    const deps = createTestDeps();
    const order: string[] = [];
    const slow = deps.uow.run(async () => {
      order.push('a:start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('a:end');
    });
    const fast = deps.uow.run(async () => {
      order.push('b');
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['a:start', 'a:end', 'b']);
  });
});

describe('memory repositories', () => {
  it('return copies, never the stored objects', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const key = await deps.repos.apiKeys.findById(alice.apiKey.id);
    if (!key) throw new Error('missing');
    key.name = 'changed';
    expect((await deps.repos.apiKeys.findById(alice.apiKey.id))?.name).toBe('default');
  });

  it('enforce the unique constraints a database would', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps, 'a@example.com');
    await expect(deps.repos.apiKeys.insert(alice.apiKey)).rejects.toBeInstanceOf(ConstraintError);
    await expect(deps.repos.accounts.createUser({ ...alice.user, id: 'other' })).rejects.toThrow(
      /email/,
    );
    await expect(
      deps.repos.accounts.addMembership({
        accountId: 'x',
        userId: 'y',
        role: 'member',
        createdAt: new Date(),
      }),
    ).resolves.toBeUndefined();
    await expect(
      deps.repos.accounts.addMembership({
        accountId: 'x',
        userId: 'y',
        role: 'member',
        createdAt: new Date(),
      }),
    ).rejects.toThrow(/membership/);
  });

  it('idempotency records: find live ones, keep the first, purge expired ones', async () => {
    const deps = createTestDeps();
    const now = deps.clock.now();
    const record: IdempotencyRecord = {
      scope: 'acct:POST /posts',
      key: 'k1',
      requestHash: 'h1',
      statusCode: 201,
      responseBody: '{}',
      createdAt: now,
      expiresAt: new Date(now.getTime() + 1000),
    };
    const repo = deps.repos.idempotency;
    expect(await repo.putIfAbsent(record)).toEqual(record);
    expect(await repo.putIfAbsent({ ...record, requestHash: 'h2' })).toEqual(record);
    expect(await repo.find(record.scope, 'k1', now)).toEqual(record);
    const later = new Date(now.getTime() + 1000);
    expect(await repo.find(record.scope, 'k1', later)).toBeNull();
    const replacement = {
      ...record,
      requestHash: 'h3',
      createdAt: later,
      expiresAt: new Date(later.getTime() + 5),
    };
    expect(await repo.putIfAbsent(replacement)).toEqual(replacement);
    expect(await repo.deleteExpired(new Date(later.getTime() + 5))).toBe(1);
    expect(await repo.deleteExpired(later)).toBe(0);
  });

  it('fault injection fails exactly the next call', async () => {
    const deps = createTestDeps();
    deps.store.failNext('accounts.countUsers');
    await expect(deps.repos.accounts.countUsers()).rejects.toThrow(
      /injected failure of accounts.countUsers/,
    );
    expect(await deps.repos.accounts.countUsers()).toBe(0);
  });

  it('deleting a webhook deletes its deliveries and their attempts', async () => {
    const deps = createTestDeps();
    const { webhooks, deliveries } = deps.repos;
    const now = deps.clock.now();
    const hook = {
      id: 'w1',
      accountId: 'a',
      createdBy: 'u',
      url: 'https://x.example',
      events: ['post.failed' as const],
      socialAccountIds: null,
      active: true,
      disabledReason: null,
      failingSince: null,
      secretCiphertext: 's',
      createdAt: now,
    };
    await webhooks.insert(hook);
    await webhooks.insert({ ...hook, id: 'w2' });
    const delivery = {
      id: 'd1',
      webhookId: 'w1',
      accountId: 'a',
      postId: 'p',
      event: 'post.failed' as const,
      payload: '{}',
      status: 'pending' as const,
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: now,
      deliveredAt: null,
      createdAt: now,
    };
    await deliveries.insertMany([delivery, { ...delivery, id: 'd2', webhookId: 'w2' }]);
    await deliveries.recordAttempt(
      {
        id: 'at1',
        deliveryId: 'd1',
        attemptNo: 1,
        statusCode: 500,
        error: 'HTTP 500',
        durationMs: 3,
        createdAt: now,
      },
      { status: 'pending', nextAttemptAt: now, deliveredAt: null },
    );
    await expect(
      deliveries.recordAttempt(
        {
          id: 'at2',
          deliveryId: 'nope',
          attemptNo: 1,
          statusCode: 500,
          error: null,
          durationMs: 3,
          createdAt: now,
        },
        { status: 'pending', nextAttemptAt: now, deliveredAt: null },
      ),
    ).rejects.toThrow();
    expect(await webhooks.delete('w1')).toBe(true);
    expect(await deliveries.findById('d1')).toBeNull();
    expect(deps.store.tables.attempts.size).toBe(0);
    expect(await deliveries.findById('d2')).not.toBeNull();
    await deliveries.reset('missing', now); // no-op
  });

  it('missing rows are ignored by blind updates', async () => {
    const deps = createTestDeps();
    const now = deps.clock.now();
    await deps.repos.apiKeys.touchLastUsed('missing', now);
    await deps.repos.socialAccounts.updateTokens(
      'missing',
      { accessTokenCiphertext: 'x', refreshTokenCiphertext: null, tokenExpiresAt: null },
      now,
    );
    await memoryStorageTesting(deps.store).setConnectionStatus('missing', 'expired', now);
    await deps.repos.posts.saveResumeState('missing', {}, now, now);
    await deps.repos.posts.releaseTarget('missing', null, now);
    expect(
      await deps.repos.posts.startPublish('missing', {
        now,
        startBefore: now,
        leaseExpiresAt: now,
      }),
    ).toBeNull();
    expect(await deps.repos.socialAccounts.markExpired('missing', now)).toBe(false);
    expect(await deps.repos.posts.renewLease('missing', now, now)).toBe(false);
    await expect(
      deps.repos.posts.insert({
        id: 'p1',
        accountId: 'a',
        createdBy: 'u',
        seriesId: null,
        rejectionReason: null,
        content: '',
        mediaUrls: [],
        platformOptions: {},
        thread: [],
        firstComment: null,
        scheduledAt: null,
        status: 'queued',
        createdAt: now,
        updatedAt: now,
        targets: [
          {
            id: 't1',
            postId: 'other',
            platform: 'twitter',
            socialAccountId: 's',
            sandbox: false,
            status: 'pending',
            attempts: 0,
            errorCode: null,
            errorMessage: null,
            retryable: null,
            platformPostId: null,
            platformUrl: null,
            threadPostIds: [],
            firstCommentId: null,
            resumeState: null,
            leaseExpiresAt: null,
            publishedAt: null,
            unpublish: null,
            updatedAt: now,
          },
        ],
      }),
    ).rejects.toThrow(/another post/);
  });
});

describe('FakeQueue', () => {
  const handlers = (
    results: Record<string, JobResult[] | Error>,
  ): JobHandlers & { seen: string[] } => {
    const seen: string[] = [];
    const next = (id: string) => {
      const script = results[id];
      if (script instanceof Error) throw script;
      return script?.shift() ?? { kind: 'done' as const };
    };
    return {
      seen,
      publish: async (id, ctx) => {
        seen.push(`publish:${id}:${ctx.attempt}`);
        return next(id);
      },
      deliver: async (id, ctx) => {
        seen.push(`deliver:${id}:${ctx.attempt}`);
        return next(id);
      },
      unpublish: async (id, ctx) => {
        seen.push(`unpublish:${id}:${ctx.attempt}`);
        return next(id);
      },
    };
  };

  it('deduplicates by job id, delays, cancels waiting jobs and reports health', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    await queue.enqueuePublish('p1', null);
    await queue.enqueuePublish('p1', new Date(clock.now().getTime() + 5000));
    await queue.enqueueDelivery('d1', new Date(clock.now().getTime() + 5000));
    expect(queue.list().map((j) => `${j.kind}:${j.id}`)).toEqual(['publish:p1', 'deliver:d1']);
    expect(queue.list('deliver')[0]?.runAt).toEqual(new Date(clock.now().getTime() + 5000));
    expect(queue.enqueued).toHaveLength(3);
    expect(await queue.cancelPublish('p1')).toBe(true);
    expect(await queue.cancelPublish('p1')).toBe(false);
    expect(await queue.ping()).toBe(true);
    queue.healthy = false;
    expect(await queue.ping()).toBe(false);
    await queue.close();
    expect(queue.closed).toBe(true);
  });

  it('runs due jobs, retries with attempt + 1 after the delay, drops after maxAttempts', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.maxAttempts = 3;
    await queue.enqueuePublish('p1', null);
    await queue.enqueuePublish('p2', null);
    await queue.enqueueDelivery('d1', new Date(clock.now().getTime() + 60_000));
    const retry = { kind: 'retry' as const, delayMs: 1000, reason: 'again' };
    const h = handlers({ p1: [retry], p2: [retry, retry, retry], d1: new Error('boom') });
    expect(await queue.runDue(h)).toBe(2);
    const runs = await queue.drain(h);
    expect(runs).toBeGreaterThan(0);
    expect(h.seen).toEqual([
      'publish:p1:1',
      'publish:p2:1',
      'publish:p1:2',
      'publish:p2:2',
      'publish:p2:3',
      'deliver:d1:1',
      'deliver:d1:2',
      'deliver:d1:3',
    ]);
    expect(queue.dropped.map((j) => j.id)).toEqual(['p2', 'd1']);
    expect(queue.jobs.size).toBe(0);
  });

  it('an active job is not cancelled', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    await queue.enqueuePublish('p1', null);
    let cancelled: boolean | undefined;
    await queue.runDue({
      publish: async () => {
        cancelled = await queue.cancelPublish('p1');
        return { kind: 'done' };
      },
      deliver: async () => ({ kind: 'done' }),
      unpublish: async () => ({ kind: 'done' }),
    });
    expect(cancelled).toBe(false);
  });

  it('drain stops at maxRuns and without a fake clock', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    await queue.enqueuePublish('p1', null);
    const forever = {
      publish: async () => ({ kind: 'retry' as const, delayMs: 10, reason: 'x' }),
      deliver: async () => ({ kind: 'done' as const }),
      unpublish: async () => ({ kind: 'done' as const }),
    };
    queue.maxAttempts = 1_000_000;
    expect(await queue.drain(forever, { maxRuns: 5 })).toBe(5);
    const real = new FakeQueue({ now: () => new Date(0) });
    await real.enqueuePublish('p1', new Date(1_000));
    expect(await real.drain(forever)).toBe(0);
  });
});

describe('small fakes', () => {
  it('FakeClock sets and advances', () => {
    const clock = new FakeClock('2026-05-01T00:00:00Z');
    expect(clock.advance(1000)).toEqual(new Date('2026-05-01T00:00:01Z'));
    clock.set(new Date('2027-01-01T00:00:00Z'));
    expect(clock.now().toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('SequentialIds are ordered valid UUIDs', () => {
    const ids = new SequentialIds();
    expect([ids.newId(), ids.newId()]).toEqual([
      '00000000-0000-7000-8000-000000000001',
      '00000000-0000-7000-8000-000000000002',
    ]);
  });

  it('MemoryLogger records; silentLogger says nothing', () => {
    const logger = new MemoryLogger();
    logger.debug({ a: 1 });
    logger.info({ a: 2 }, 'i');
    logger.warn({ a: 3 }, 'w');
    logger.error({ a: 4 }, 'e');
    expect(logger.entries.map((e) => e.level)).toEqual(['debug', 'info', 'warn', 'error']);
    expect(logger.at('error')).toEqual([{ level: 'error', obj: { a: 4 }, msg: 'e' }]);
    for (const level of ['debug', 'info', 'warn', 'error'] as const) silentLogger[level]({});
  });

  it('ScriptedPublisher answers from its script then publishes; the registry finds publishers', async () => {
    const deps = createTestDeps();
    const publisher = new ScriptedPublisher('twitter');
    expect(publisher.validate({ content: '', mediaUrls: [], platformOptions: {} })).toEqual([]);
    expect(() => deps.platforms.publisher('twitter')).not.toThrow();
    deps.platforms.remove('twitter');
    expect(() => deps.platforms.publisher('twitter')).toThrow(/no scripted publisher/);
    expect(deps.platforms.get('twitter')).toBeUndefined();
  });
});
