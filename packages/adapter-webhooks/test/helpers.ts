import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Server as TcpServer,
} from 'node:net';
import type { ResolvedAddress, Resolver } from '@social-publisher/net-guard';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (
  req: ReceivedRequest,
  res: ServerResponse,
  index: number,
) => void | Promise<void>;

export interface Receiver {
  port: number;
  url: (path?: string) => string;
  requests: ReceivedRequest[];
  /** TCP connections accepted, whether or not a request followed. */
  connections: () => number;
  setHandler: (handler: Handler) => void;
  close: () => Promise<void>;
}

/** A local HTTP receiver that records every request (raw body bytes) and connection. */
export async function startReceiver(initial?: Handler): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  let handler: Handler = initial ?? ((_req, res) => void res.end('ok'));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(received);
      Promise.resolve(handler(received, res, requests.length - 1)).catch(() => res.destroy());
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    connections: () => connections,
    setHandler: (next) => {
      handler = next;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A bare TCP listener counting accepted connections: the SSRF corpus asserts it stays at 0. */
export async function startConnectionCounter(): Promise<{
  port: number;
  count: () => number;
  close: () => Promise<void>;
}> {
  let count = 0;
  const server: TcpServer = createTcpServer((socket) => {
    count += 1;
    socket.destroy();
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    port,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A resolver over a table of names; unknown names fail like NXDOMAIN. Records every lookup. */
export function tableResolver(
  table: Record<string, string[] | (() => string[])>,
): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    const addresses = typeof entry === 'function' ? entry() : entry;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

/** A Logger that keeps every line, to assert what is (and is not) logged. */
export function memoryLogger() {
  const lines: Array<{ level: string; obj: object; msg: string | undefined }> = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj, msg });
    };
  return {
    lines,
    text: () => JSON.stringify(lines),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}
