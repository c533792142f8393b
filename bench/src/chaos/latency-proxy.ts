/**
 * An HTTP proxy on 127.0.0.1 in front of a fake platform that holds each request for a random
 * 0..maxMs before forwarding it: platform answers that take a while widen the window in which a
 * killed worker leaves a request sent and its answer unrecorded (what the storm is about).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LatencyProxy {
  baseUrl: string;
  close(): Promise<void>;
}

export async function startLatencyProxy(
  targetBaseUrl: string,
  maxMs: number,
): Promise<LatencyProxy> {
  const target = new URL(targetBaseUrl);
  const server = createServer((incoming, outgoing) => {
    const delay = Math.floor(Math.random() * (maxMs + 1));
    setTimeout(() => {
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: target.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      // The caller went away (a killed worker): drop the forwarded request too.
      upstream.on('error', () => outgoing.destroy());
      incoming.on('error', () => upstream.destroy());
      incoming.pipe(upstream);
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
