/**
 * Child process of the create benchmark: the load generator, kept out of the measured process.
 * - `run`: one autocannon pass (closed loop: N connections, each sends as soon as it is answered).
 * - `open`: an open loop: requests leave at evenly spaced times (`rate` per second) whatever
 *   the answers' pace, over a pool with room for every request in flight; each latency counts
 *   from the time its request was due, so queueing in the generator is not hidden (no
 *   coordinated omission). autocannon's `-R` is not used for this: it sends each second's
 *   quota back to back from the start of the second, a closed loop for part of every second.
 */
import { connect, type Socket } from 'node:net';
import autocannon from 'autocannon';
import { onParentMessage, toParent } from '../lib/child.ts';
import { percentile } from '../lib/stats.ts';

async function closedLoop(message: Record<string, unknown>): Promise<void> {
  const result = await autocannon({
    url: String(message.url),
    method: 'POST',
    headers: message.headers as Record<string, string>,
    body: String(message.body),
    connections: Number(message.connections),
    duration: Number(message.durationSeconds),
    pipelining: 1,
    timeout: 30,
  });
  toParent({
    type: 'result',
    total: result.requests.total,
    durationSeconds: result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statusCodes: Object.keys(result.statusCodeStats ?? {}).join(','),
  });
}

/** How often the open loop wakes to send what has come due. */
const TICK_MS = 1;
/** Keep-alive connections of the open loop: room for every request in flight. */
const OPEN_CONNECTIONS = 128;

interface Conn {
  socket: Socket;
  /** When the request on this connection was due (null: idle). */
  due: number | null;
  buffer: Buffer;
}

/**
 * The open loop on raw keep-alive sockets with one prebuilt request: cheap enough per request
 * that the generator does not take the cores the service is measured on (undici's client cost
 * several times more and bent the figure).
 */
async function openLoop(message: Record<string, unknown>): Promise<void> {
  const url = new URL(String(message.url));
  const rate = Number(message.rate);
  const seconds = Number(message.durationSeconds);
  const total = Math.round(rate * seconds);
  const body = Buffer.from(String(message.body));
  const headers = message.headers as Record<string, string>;
  const head = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${body.length}`,
    '',
    '',
  ].join('\r\n');
  const requestBytes = Buffer.concat([Buffer.from(head), body]);

  const latencies: number[] = [];
  const dues: number[] = [];
  const codes = new Set<number>();
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let answered = 0;
  const waiting: number[] = []; // due times not sent yet (every connection busy)
  const idle: Conn[] = [];
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const settle = () => {
    answered += 1;
    if (answered === total) finish();
  };
  // How late requests left: the tick, or every connection busy (the service is behind).
  const sendLags: number[] = [];
  const send = (conn: Conn, due: number) => {
    conn.due = due;
    sendLags.push(performance.now() - due);
    conn.socket.write(requestBytes);
  };
  const dispatch = () => {
    while (idle.length > 0 && waiting.length > 0) {
      send(idle.pop() as Conn, waiting.shift() as number);
    }
  };
  /** One whole response at the head of the buffer: its status; null while incomplete. */
  const takeResponse = (conn: Conn): number | null => {
    const end = conn.buffer.indexOf('\r\n\r\n');
    if (end < 0) return null;
    const headText = conn.buffer.subarray(0, end).toString('latin1');
    const status = Number(headText.slice(9, 12));
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headText)?.[1] ?? 0);
    if (conn.buffer.length < end + 4 + length) return null;
    conn.buffer = conn.buffer.subarray(end + 4 + length);
    return status;
  };

  const conns = await Promise.all(
    Array.from(
      { length: OPEN_CONNECTIONS },
      () =>
        new Promise<Conn>((resolve, reject) => {
          const socket = connect(Number(url.port), url.hostname, () => resolve(conn));
          const conn: Conn = { socket, due: null, buffer: Buffer.alloc(0) };
          socket.setNoDelay(true);
          socket.once('error', reject);
          socket.on('data', (chunk: Buffer) => {
            conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk]);
            for (;;) {
              const status = takeResponse(conn);
              if (status === null || conn.due === null) break;
              latencies.push(performance.now() - conn.due);
              dues.push(conn.due);
              codes.add(status);
              if (status >= 200 && status < 300) ok += 1;
              else non2xx += 1;
              conn.due = null;
              idle.push(conn);
              settle();
            }
            dispatch();
          });
          socket.on('close', () => {
            if (conn.due !== null) {
              conn.due = null;
              errors += 1;
              settle();
            }
          });
        }),
    ),
  );
  idle.push(...conns);

  const started = performance.now();
  let sent = 0;
  const timer = setInterval(() => {
    const elapsed = performance.now() - started;
    while (sent < total && (sent * 1000) / rate <= elapsed) {
      waiting.push(started + (sent * 1000) / rate);
      sent += 1;
    }
    dispatch();
    if (sent >= total) clearInterval(timer);
  }, TICK_MS);
  await finished;
  const durationSeconds = (performance.now() - started) / 1000;
  for (const conn of conns) conn.socket.destroy();
  toParent({
    type: 'result',
    total,
    durationSeconds,
    ok,
    non2xx,
    errors,
    timeouts: 0,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    sendLagP99: percentile(sendLags, 99),
    slow: slowAnswers(dues, latencies, started),
    statusCodes: [...codes].join(','),
  });
}

/** Answers slower than this are counted, with the 100 ms windows they were due in. */
const SLOW_MS = 25;

/**
 * How the slow answers came: spread over the run (the service is near its limit) or bunched in
 * a few 100 ms windows (a stall: a disk flush, a pause, the host).
 */
function slowAnswers(dues: number[], latencies: number[], started: number) {
  const windows = new Set<number>();
  let count = 0;
  for (const [i, latency] of latencies.entries()) {
    if (latency <= SLOW_MS) continue;
    count += 1;
    windows.add(Math.floor(((dues[i] ?? started) - started) / 100));
  }
  return { count, windows: windows.size };
}

onParentMessage(async (message) => {
  if (message.type === 'run') await closedLoop(message);
  if (message.type === 'open') await openLoop(message);
});

toParent({ type: 'ready' });
