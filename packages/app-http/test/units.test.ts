import { Writable } from 'node:stream';
import { DependencyUnavailableError } from '@social-publisher/domain';
import { createTestDeps, FakeClock } from '@social-publisher/domain/testing';
import { describe, expect, it } from 'vitest';
import { bootstrap, firstUserBanner } from '../src/bootstrap.ts';
import { parseCommand, UsageError } from '../src/cli-args.ts';
import { HttpError, toHttpError } from '../src/errors.ts';
import { createIdempotency } from '../src/idempotency/idempotency.ts';
import { KeyMutex } from '../src/idempotency/key-mutex.ts';
import { canonicalJson, requestHash } from '../src/idempotency/request-hash.ts';
import { createLogger } from '../src/logger.ts';
import { requestIdOf } from '../src/plugins/request-id.ts';
import { createMemoryRateLimitStore } from '../src/rate-limit/memory-store.ts';
import { createRedisRateLimitStore, type RedisEvalClient } from '../src/rate-limit/redis-store.ts';
import { fieldPath, problemsFromSchemaIssues } from '../src/validation.ts';

describe('validation details', () => {
  it('JSON pointers become the domain field paths', () => {
    expect(fieldPath('/media_urls/0')).toBe('media_urls[0]');
    expect(fieldPath('/platform_options/tiktok/tiktokPrivacy')).toBe(
      'platform_options.tiktok.tiktokPrivacy',
    );
    expect(fieldPath('/a~1b/c~0d')).toBe('a/b.c~d');
    expect(fieldPath('', 'body')).toBe('body');
    expect(fieldPath('', 'querystring')).toBe('querystring');
  });

  it('one readable problem per field', () => {
    const problems = problemsFromSchemaIssues(
      [
        { keyword: 'required', instancePath: '', params: { requiredProperties: ['name', 'url'] } },
        { keyword: 'required', instancePath: '/x', params: { missingProperty: 'y' } },
        { keyword: 'maxLength', instancePath: '/content', params: { limit: 5000 } },
        { keyword: 'minLength', instancePath: '/name', params: { limit: 1 } },
        { keyword: 'type', instancePath: '/a', params: { type: 'integer' } },
        { keyword: 'format', instancePath: '/id', params: { format: 'uuid' } },
        { keyword: 'const', instancePath: '/u', params: { allowedValue: 'x' } },
        { keyword: 'const', instancePath: '/u', params: { allowedValue: 'y' } },
        { keyword: 'anyOf', instancePath: '/u', params: {} },
        { keyword: 'somethingElse', instancePath: '/z', message: 'is odd' },
      ],
      'body',
    );
    expect(problems).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'url', message: 'is required' },
      { field: 'x.y', message: 'is required' },
      { field: 'content', message: 'must be at most 5000 characters' },
      { field: 'a', message: 'must be an integer' },
      { field: 'id', message: 'must be a UUID' },
      { field: 'u', message: 'must be one of x, y' },
      { field: 'z', message: 'is odd' },
    ]);
  });

  it('details are capped', () => {
    const issues = Array.from({ length: 500 }, (_, i) => ({
      keyword: 'type',
      instancePath: `/list/${i}`,
      params: { type: 'string' },
    }));
    expect(problemsFromSchemaIssues(issues, 'body')).toHaveLength(50);
  });
});

describe('error mapping', () => {
  it('unknown errors are 500 internal_error; fastify 4xx keep their status', () => {
    expect(toHttpError(new Error('boom')).statusCode).toBe(500);
    expect(toHttpError('weird').code).toBe('internal_error');
    expect(toHttpError(null).statusCode).toBe(500);
    expect(toHttpError(Object.assign(new Error('x'), { statusCode: 408 })).code).toBe(
      'request_timeout',
    );
    expect(toHttpError(Object.assign(new Error('x'), { statusCode: 422 })).code).toBe(
      'bad_request',
    );
    const own = new HttpError(409, 'conflict', 'x');
    expect(toHttpError(own)).toBe(own);
  });

  it("an adapter's DependencyUnavailableError, itself or as a cause, is 503 with Retry-After", () => {
    const outage = new DependencyUnavailableError(
      'database',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    );
    for (const error of [outage, new Error('the post could not be stored', { cause: outage })]) {
      const mapped = toHttpError(error);
      expect(mapped.statusCode).toBe(503);
      expect(mapped.code).toBe('service_unavailable');
      expect(mapped.headers['Retry-After']).toBe('5');
    }
  });
});

describe('request ids', () => {
  const raw = (id?: string) =>
    ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as never;
  it('keeps sane incoming ids, replaces others', () => {
    expect(requestIdOf(raw('req-1'))).toBe('req-1');
    expect(requestIdOf(raw('a'.repeat(129)))).not.toBe('a'.repeat(129));
    expect(requestIdOf(raw('a b'))).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdOf(raw())).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('idempotency', () => {
  it('canonical JSON ignores key order, not values', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
    expect(requestHash({ a: 1, b: 2 })).toBe(requestHash({ b: 2, a: 1 }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
    expect(requestHash(undefined)).toBe(requestHash(null));
  });

  it('canonical JSON is JSON.stringify with sorted keys, at any depth', () => {
    const value = { z: [1, 'two', null, { y: true, x: undefined }], a: {}, m: [], s: 'q"\u0001' };
    expect(canonicalJson(value)).toBe(
      '{"a":{},"m":[],"s":"q\\"\\u0001","z":[1,"two",null,{"y":true}]}',
    );
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    // Deeper than the stack allows recursion (a bulk body the rules refuse later).
    let deep: unknown = 1;
    for (let level = 0; level < 300_000; level++) deep = [deep];
    expect(canonicalJson(deep)).toHaveLength(600_001);
  });

  it('the mutex serializes per key and survives failures', async () => {
    const mutex = new KeyMutex();
    const order: string[] = [];
    const slow = (name: string, ms: number) => async () => {
      order.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`end ${name}`);
      return name;
    };
    const failing = mutex.run('k', async () => {
      throw new Error('x');
    });
    await expect(failing).rejects.toThrow('x');
    await Promise.all([mutex.run('k', slow('a', 20)), mutex.run('k', slow('b', 1))]);
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(mutex.size).toBe(0);
  });

  it('two processes sharing storage: the second waits and replays the first', async () => {
    const deps = createTestDeps();
    const one = createIdempotency(deps, { ttlMs: 86_400_000, pollMs: 5 });
    const two = createIdempotency(deps, { ttlMs: 86_400_000, pollMs: 5 });
    let executions = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = one.run('scope', 'key', { a: 1 }, async () => {
      executions++;
      await gate;
      return { statusCode: 201, body: { data: { id: 'p1' } } };
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = two.run('scope', 'key', { a: 1 }, async () => {
      executions++;
      return { statusCode: 201, body: { data: { id: 'p2' } } };
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(executions).toBe(1);
    expect(a).toEqual({ statusCode: 201, body: { data: { id: 'p1' } }, replayed: false });
    expect(b).toEqual({ statusCode: 201, body: { data: { id: 'p1' } }, replayed: true });
  });

  it('another process holding the key too long: 409 in progress with Retry-After; another body: 409 reused', async () => {
    const deps = createTestDeps();
    const one = createIdempotency(deps, { ttlMs: 1000, pollMs: 5, waitMs: 30 });
    const two = createIdempotency(deps, { ttlMs: 1000, pollMs: 5, waitMs: 30 });
    const stuck = one.run('s', 'k', { a: 1 }, () => new Promise(() => {}));
    void stuck;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const inProgress = await two
      .run('s', 'k', { a: 1 }, async () => ({ statusCode: 201, body: {} }))
      .catch((e) => e);
    expect(inProgress).toBeInstanceOf(HttpError);
    expect(inProgress).toMatchObject({
      statusCode: 409,
      code: 'idempotency_key_in_progress',
      headers: { 'Retry-After': '1' },
    });
    const reused = await two
      .run('s', 'k', { a: 2 }, async () => ({ statusCode: 201, body: {} }))
      .catch((e) => e);
    expect(reused).toMatchObject({ statusCode: 409, code: 'idempotency_key_reused' });
  });

  it('after a failed request the key is free at once in another process, even with a fixed body', async () => {
    const deps = createTestDeps();
    const one = createIdempotency(deps, { ttlMs: 86_400_000, pollMs: 5, waitMs: 30 });
    const two = createIdempotency(deps, { ttlMs: 86_400_000, pollMs: 5, waitMs: 30 });
    const failed = await one.run('s', 'k', { a: 0 }, async () => ({ statusCode: 400, body: {} }));
    expect(failed).toMatchObject({ statusCode: 400, replayed: false });
    const fixed = await two.run('s', 'k', { a: 1 }, async () => ({
      statusCode: 201,
      body: { data: { id: 'p1' } },
    }));
    expect(fixed).toEqual({ statusCode: 201, body: { data: { id: 'p1' } }, replayed: false });
    const replay = await one.run('s', 'k', { a: 1 }, async () => ({ statusCode: 201, body: {} }));
    expect(replay).toEqual({ statusCode: 201, body: { data: { id: 'p1' } }, replayed: true });
  });

  it('a success is stored through a short outage, so a retry replays it instead of running again', async () => {
    const deps = createTestDeps();
    const repo = deps.repos.idempotency;
    const put = repo.putIfAbsent.bind(repo);
    let failures = 2;
    repo.putIfAbsent = async (record) => {
      if (!record.scope.endsWith('#lock') && failures-- > 0) throw new Error('connection lost');
      return put(record);
    };
    const idempotency = createIdempotency(deps, { ttlMs: 86_400_000, storeRetryMs: 5_000 });
    let executions = 0;
    const execute = async () => {
      executions++;
      return { statusCode: 200, body: { data: { created: 1 } } };
    };
    expect(await idempotency.run('s', 'k', { a: 1 }, execute)).toMatchObject({ replayed: false });
    expect(await idempotency.run('s', 'k', { a: 1 }, execute)).toMatchObject({ replayed: true });
    expect(executions).toBe(1);
  });

  it('expired records are swept', async () => {
    const deps = createTestDeps();
    const idempotency = createIdempotency(deps, { ttlMs: 1000 });
    await idempotency.run('s', 'k', {}, async () => ({ statusCode: 201, body: {} }));
    deps.clock.advance(60_000);
    expect(await idempotency.sweep()).toBeGreaterThan(0);
  });
});

describe('rate limit stores', () => {
  it('memory: fixed windows per key', async () => {
    let now = 0;
    const store = createMemoryRateLimitStore(() => now);
    expect(await store.hit('a', 1000)).toEqual({ count: 1, resetInMs: 1000 });
    now = 400;
    expect(await store.hit('a', 1000)).toEqual({ count: 2, resetInMs: 600 });
    expect((await store.hit('b', 1000)).count).toBe(1);
    now = 1000;
    expect(await store.hit('a', 1000)).toEqual({ count: 1, resetInMs: 1000 });
    await store.close();
  });

  it('redis: one atomic script per hit by its hash, the text only when Redis lacks it', async () => {
    const calls: Array<{ kind: string; args: unknown[] }> = [];
    let loaded = false;
    const client: RedisEvalClient = {
      evalsha: async (...args) => {
        calls.push({ kind: 'evalsha', args });
        if (!loaded) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
        return [4, 1400];
      },
      eval: async (...args) => {
        calls.push({ kind: 'eval', args });
        loaded = true;
        return [3, 1500];
      },
      quit: async () => 'OK',
      disconnect: () => {},
    };
    const store = createRedisRateLimitStore(client, 'sp:ratelimit:');
    expect(await store.hit('key:1', 60_000)).toEqual({ count: 3, resetInMs: 1500 });
    expect(await store.hit('key:1', 60_000)).toEqual({ count: 4, resetInMs: 1400 });
    expect(calls.map((call) => call.kind)).toEqual(['evalsha', 'eval', 'evalsha']);
    expect(calls[1]?.args.slice(1)).toEqual([1, 'sp:ratelimit:key:1', 60_000]);
    expect(calls[2]?.args.slice(1)).toEqual([1, 'sp:ratelimit:key:1', 60_000]);
    await store.close();
  });

  it('redis: a real server when one answers', async (context) => {
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const { Redis } = await import('ioredis');
    const client = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 500,
      enableOfflineQueue: false,
    });
    try {
      await client.connect();
    } catch {
      client.disconnect();
      context.skip(`no Redis at ${url}`);
      return;
    }
    const store = createRedisRateLimitStore(client, `sp-test-${process.pid}-${Date.now()}:`);
    expect((await store.hit('k', 5_000)).count).toBe(1);
    const second = await store.hit('k', 5_000);
    expect(second.count).toBe(2);
    expect(second.resetInMs).toBeGreaterThan(0);
    expect(second.resetInMs).toBeLessThanOrEqual(5_000);
    await store.close();
  });
});

describe('logger redaction', () => {
  it('never writes credentials, tokens, keys or secrets', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ logLevel: 'info' }, { destination: sink });
    logger.info({
      req: {
        headers: {
          authorization: 'Bearer sp_secret1',
          'x-api-key': 'sp_secret2',
          cookie: 'sid=secret3',
        },
      },
      body: { access_token: 'secret4', refresh_token: 'secret5', key: 'sp_secret6' },
      webhook: { secret: 'whsec_secret7' },
      token: 'secret8',
      nested: { deeper: { password: 'secret9' } },
    });
    const text = lines.join('');
    expect(text).not.toMatch(/secret\d/);
    expect(text).toContain('[redacted]');
  });
});

describe('bootstrap', () => {
  it('creates a first user only on an empty database', async () => {
    const deps = createTestDeps();
    const first = await bootstrap(deps, null);
    expect(first.kind).toBe('first-user');
    if (first.kind === 'first-user') {
      expect(first.rawKey).toMatch(/^sp_/);
      expect(firstUserBanner(first.rawKey, 'http://localhost:3000')).toContain(
        `curl -H "Authorization: Bearer ${first.rawKey}" http://localhost:3000/posts`,
      );
    }
    expect((await bootstrap(deps, null)).kind).toBe('none');
  });

  it('BOOTSTRAP_API_KEY ensures a user owning exactly that key, idempotently', async () => {
    const deps = createTestDeps({ clock: new FakeClock() });
    const key = `sp_${'A1b2C3d4E5'.repeat(4)}`;
    const first = await bootstrap(deps, key);
    const second = await bootstrap(deps, key);
    expect(first).toMatchObject({ kind: 'ensured', created: true });
    expect(second).toMatchObject({ kind: 'ensured', created: false });
  });
});

describe('cli arguments', () => {
  it('users create [--email E]', () => {
    expect(parseCommand(['users', 'create', '--email', 'a@b.c'])).toEqual({
      command: 'users create',
      email: 'a@b.c',
    });
    expect(parseCommand(['users', 'create', '--email=a@b.c'])).toMatchObject({ email: 'a@b.c' });
    expect(parseCommand(['users', 'create'])).toEqual({
      command: 'users create',
      email: undefined,
    });
  });

  it('secrets reencrypt', () => {
    expect(parseCommand(['secrets', 'reencrypt'])).toEqual({ command: 'secrets reencrypt' });
    expect(() => parseCommand(['secrets', 'reencrypt', '--email', 'a@b.c'])).toThrow(UsageError);
    expect(() => parseCommand(['secrets', 'rotate'])).toThrow(/unknown command: secrets rotate/);
  });

  it('clear usage errors', () => {
    expect(() => parseCommand([])).toThrow(UsageError);
    expect(() => parseCommand(['users'])).toThrow(/unknown command/);
    expect(() => parseCommand(['users', 'delete'])).toThrow(/unknown command: users delete/);
    expect(() => parseCommand(['users', 'create', '--mail', 'x'])).toThrow(UsageError);
    expect(() => parseCommand(['users', 'create', '--email'])).toThrow(UsageError);
    expect(() => parseCommand(['users', 'create', '--email', ' '])).toThrow(
      /--email needs an address/,
    );
  });
});
