/**
 * Slow senders over a real socket: a request whose headers or body trickle in is ended (408,
 * then the connection closed) after the configured bounds, instead of holding the connection.
 * A CSV import gets the longer import bound.
 */
import { connect, type Socket } from 'node:net';
import { createTestDeps, seedUser } from '@social-publisher/domain/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { TEST_CONFIG } from './support.ts';

const TIMEOUTS = { headersMs: 400, bodyMs: 600, importBodyMs: 2_500, mediaBodyMs: 2_500 };

let app: FastifyInstance;
let port: number;
let rawKey: string;
const deps = createTestDeps();

beforeAll(async () => {
  app = await buildApp({
    deps,
    checks: { database: async () => true, queue: async () => true },
    queueKind: 'inprocess',
    config: { ...TEST_CONFIG, httpTimeouts: TIMEOUTS },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  port = address.port;
  rawKey = (await seedUser(deps, 'slow@example.com')).rawKey;
});
afterAll(() => app.close());

/** A raw connection: what it received, and when the server closed it. */
function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<number>((done) =>
      socket.on('close', () => done(Date.now() - started)),
    );
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `chunks` one every `everyMs` until the socket closes or they run out. */
async function trickle(socket: Socket, chunks: string[], everyMs: number): Promise<void> {
  for (const chunk of chunks) {
    if (socket.destroyed || !socket.writable) return;
    socket.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const head = (path: string, type: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${rawKey}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;

describe('slow requests', { timeout: 20_000 }, () => {
  it('an authenticated body sent slowly is answered 408 in the error envelope, then closed', async () => {
    const { socket, received, closed } = await open();
    const body = JSON.stringify({ content: 'x'.repeat(200), platforms: ['twitter'] });
    socket.write(head('/posts', 'application/json', body.length));
    // One byte every 100 ms: 20 s for the whole body, never idle long.
    void trickle(socket, body.split(''), 100);
    const elapsed = await closed;
    expect(elapsed).toBeLessThan(TIMEOUTS.bodyMs + 2_000);
    expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(received()).toMatch(/connection: close/i);
    const json = received().slice(received().indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(json)).toEqual({
      error: {
        code: 'request_timeout',
        message: expect.stringMatching(/did not arrive within 0\.6 s/),
      },
    });
  });

  it('headers sent slowly end with a closed connection within the headers bound', async () => {
    const { socket, received, closed } = await open();
    const lines = head('/posts', 'application/json', 2)
      .split('\r\n')
      .map((line) => `${line}\r\n`);
    void trickle(
      socket,
      lines.flatMap((line) => line.split('')),
      100,
    );
    const elapsed = await closed;
    expect(elapsed).toBeLessThan(TIMEOUTS.headersMs + 2_000);
    expect(received()).not.toMatch(/^HTTP\/1\.1 2/);
  });

  it('a body left unread by a refusal is dropped: the next request on the connection is answered', async () => {
    const { socket, received } = await open();
    // Refused for its query string before the streamed CSV is read; far more than the buffers
    // between the socket and the route hold.
    const csv = `content,platforms\n${`${'x'.repeat(1_000)},twitter\n`.repeat(300)}`;
    socket.write(head('/posts/import?dry_run=%20', 'text/csv', csv.length) + csv);
    socket.write(`GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
    const started = Date.now();
    while (
      !/HTTP\/1\.1 400 [\s\S]*HTTP\/1\.1 200 /.test(received()) &&
      Date.now() - started < 3_000
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(received()).toMatch(/^HTTP\/1\.1 400 [\s\S]*HTTP\/1\.1 200 /);
    socket.destroy();
  });

  it('a CSV import has the longer import bound: a slow file still arrives, a slower one is refused', async () => {
    const csv = 'content,platforms\nhello,twitter\n';
    const ok = await open();
    ok.socket.write(head('/posts/import?dry_run=true', 'text/csv', csv.length));
    // About 1.5 s: past the JSON bound, within the import one.
    await trickle(ok.socket, csv.match(/.{1,3}/gs) ?? [], 120);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ok.received()).toMatch(/^HTTP\/1\.1 200 /);
    ok.socket.destroy();

    const slow = await open();
    slow.socket.write(head('/posts/import?dry_run=true', 'text/csv', csv.length));
    void trickle(slow.socket, csv.split(''), 200);
    const elapsed = await slow.closed;
    expect(elapsed).toBeGreaterThan(TIMEOUTS.importBodyMs - 200);
    expect(elapsed).toBeLessThan(TIMEOUTS.importBodyMs + 2_000);
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  });
});
