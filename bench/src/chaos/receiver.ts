/**
 * A webhook receiver for the fault suite: answers 200 to every delivery and counts, per post,
 * the distinct deliveries (`webhook-id`) of each event. `down()` stops listening (connections
 * refused, as when a customer's endpoint is offline); `up()` listens on the same port again.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** Distinct deliveries per `${event} ${postId}`. */
  events: Map<string, Set<string>>;
  /** Requests refused or received while down do not count; this is what arrived. */
  readonly received: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const events = new Map<string, Set<string>>();
  let received = 0;
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received += 1;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          event?: string;
          post_id?: string;
        };
        const key = `${body.event} ${body.post_id}`;
        const ids = events.get(key) ?? new Set<string>();
        ids.add(String(request.headers['webhook-id'] ?? received));
        events.set(key, ids);
      } catch {
        // not JSON: counted as received only
      }
      response.writeHead(200, { 'content-length': '0' });
      response.end();
    });
  };
  let server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    events,
    get received() {
      return received;
    },
    down: stop,
    async up() {
      server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: stop,
  };
}
