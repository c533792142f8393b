import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a fake received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /**
   * Parsed body: JSON or form fields as an object, other text as a string, undefined when empty.
   * Upload bodies are never kept: `{ bytes: <count> }` instead.
   */
  body: unknown;
}

/** What every fake returns. */
export interface FakeServer {
  baseUrl: string;
  /** Every request received, in order (token endpoints included). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Script entries apply to the next `times` (default 1) matching requests. */
export interface Scripted<A> {
  action: A;
  matches: (request: RecordedRequest) => boolean;
  remaining: number;
}

export class ScriptQueue<A> {
  readonly #entries: Scripted<A>[] = [];

  add(action: A, matches: (request: RecordedRequest) => boolean, times = 1): void {
    this.#entries.push({ action, matches, remaining: times });
  }

  /** The first entry matching `request` (consumed once), or undefined. */
  take(request: RecordedRequest, accept: (action: A) => boolean = () => true): A | undefined {
    const entry = this.#entries.find(
      (candidate) =>
        candidate.remaining > 0 && accept(candidate.action) && candidate.matches(request),
    );
    if (!entry) return undefined;
    entry.remaining -= 1;
    return entry.action;
  }
}

export type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => unknown;

/** A node:http server on 127.0.0.1:0 whose close() also ends idle keep-alive sockets. */
export async function listen(
  handler: Handler,
): Promise<{ server: Server; baseUrl: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    Promise.resolve(handler(request, response, url)).catch((error: unknown) => {
      if (!response.headersSent) {
        sendJson(response, 500, { fake_error: String(error) });
      } else {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function readBody(
  request: IncomingMessage,
  limit = 10 * 1024 * 1024,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new Error(`fake: request body over ${limit} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (type.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export function record(request: IncomingMessage, url: URL, body: unknown): RecordedRequest {
  return {
    method: request.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: request.headers,
    body,
  };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendRawJson(response, status, JSON.stringify(body), headers);
}

/** Sends JSON text as given (lets a fake emit int64 numbers JSON.stringify cannot). */
export function sendRawJson(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

/** Ends the TCP connection without an HTTP answer (the client sees a reset / "other side closed"). */
export function dropConnection(request: IncomingMessage): void {
  request.socket.destroy();
}

export const bearerToken = (headers: IncomingHttpHeaders): string | undefined => {
  const value = headers.authorization;
  return value?.startsWith('Bearer ') ? value.slice('Bearer '.length) : undefined;
};
