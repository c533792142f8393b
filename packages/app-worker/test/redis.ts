/**
 * Just enough Redis for the tests (app-worker has no Redis client of its own and may not add
 * one): PING to decide whether the suite can run, SCAN + DEL to remove a test prefix's keys.
 * RESP2 over node:net, one command at a time.
 */
import { connect, type Socket } from 'node:net';

export const REDIS_URL = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';

type Reply = string | number | null | Reply[];

/** Parses one reply at `offset`; undefined when the buffer does not hold all of it yet. */
function parse(buffer: Buffer, offset: number): { value: Reply; next: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', offset);
  if (lineEnd < 0) return undefined;
  const type = String.fromCharCode(buffer[offset] ?? 0);
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, next };
    case '-':
      throw new Error(`redis: ${line}`);
    case ':':
      return { value: Number(line), next };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buffer.length < next + length + 2) return undefined;
      return { value: buffer.toString('utf8', next, next + length), next: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: Reply[] = [];
      let position = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buffer, position);
        if (!item) return undefined;
        items.push(item.value);
        position = item.next;
      }
      return { value: items, next: position };
    }
    default:
      throw new Error(`redis: unexpected reply type ${type}`);
  }
}

class MiniRedis {
  #socket: Socket;
  #buffer = Buffer.alloc(0);
  #waiting: Array<{ resolve: (reply: Reply) => void; reject: (error: Error) => void }> = [];

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      for (;;) {
        const waiter = this.#waiting[0];
        if (!waiter) return;
        let parsed: ReturnType<typeof parse>;
        try {
          parsed = parse(this.#buffer, 0);
        } catch (error) {
          this.#waiting.shift();
          this.#buffer = Buffer.alloc(0);
          waiter.reject(error as Error);
          continue;
        }
        if (!parsed) return;
        this.#buffer = this.#buffer.subarray(parsed.next);
        this.#waiting.shift();
        waiter.resolve(parsed.value);
      }
    });
    socket.on('error', (error) => {
      for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
    });
  }

  command(...args: string[]): Promise<Reply> {
    const parts = [`*${args.length}\r\n`];
    for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(parts.join(''));
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}

async function withRedis<T>(fn: (redis: MiniRedis) => Promise<T>): Promise<T> {
  const url = new URL(REDIS_URL);
  const socket = connect({ host: url.hostname || '127.0.0.1', port: Number(url.port || 6379) });
  socket.setTimeout(2_000, () => socket.destroy(new Error('redis: timeout')));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const redis = new MiniRedis(socket);
  try {
    if (url.password) {
      const user = decodeURIComponent(url.username);
      const password = decodeURIComponent(url.password);
      await (user ? redis.command('AUTH', user, password) : redis.command('AUTH', password));
    }
    const db = url.pathname.replace('/', '');
    if (db) await redis.command('SELECT', db);
    return await fn(redis);
  } finally {
    redis.close();
  }
}

/** Why Redis cannot be used, or undefined when it answers PING. */
export async function redisUnavailable(): Promise<string | undefined> {
  try {
    const reply = await withRedis((redis) => redis.command('PING'));
    return reply === 'PONG' ? undefined : `unexpected PING reply ${String(reply)}`;
  } catch (error) {
    return `no Redis at ${REDIS_URL}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Every key starting with `prefix`. */
export function listKeys(prefix: string): Promise<string[]> {
  return withRedis(async (redis) => {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const reply = (await redis.command('SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000')) as [
        string,
        string[],
      ];
      cursor = reply[0];
      keys.push(...reply[1]);
    } while (cursor !== '0');
    return keys;
  });
}

/** Deletes every key starting with `prefix`; returns how many were deleted. */
export async function deleteKeys(prefix: string): Promise<number> {
  const keys = await listKeys(prefix);
  if (keys.length === 0) return 0;
  return withRedis(async (redis) => {
    let deleted = 0;
    for (let i = 0; i < keys.length; i += 500) {
      deleted += Number(await redis.command('DEL', ...keys.slice(i, i + 500)));
    }
    return deleted;
  });
}

let prefixes = 0;
/** A fresh queue prefix for this test file (braces: a Redis Cluster hash tag). */
export function uniquePrefix(label: string): string {
  prefixes += 1;
  return `{sp-test-worker-${label}-${process.pid}-${Date.now().toString(36)}-${prefixes}}`;
}
