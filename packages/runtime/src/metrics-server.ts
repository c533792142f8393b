/**
 * METRICS_PORT: the process's metrics on a port of their own (GET /metrics, no credential), for
 * worker processes (which serve no HTTP otherwise) and for operators who keep scrapes off the
 * API's port. Bind it where only the scraper reaches (HOST applies).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '@social-publisher/config';
import type pino from 'pino';
import type { ProcessMetrics } from './metrics.ts';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(
  metrics: ProcessMetrics,
  port: number,
  host: string,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (error: unknown) =>
        response
          .writeHead(503, { 'content-type': 'text/plain' })
          .end(`metrics unavailable: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** With METRICS_PORT set, the process's metrics server, started and announced; else null. */
export async function startMetricsServerIfConfigured(
  metrics: ProcessMetrics,
  config: Pick<Config, 'metrics' | 'host'>,
  logger: pino.Logger,
): Promise<MetricsServer | null> {
  if (config.metrics.port === null) return null;
  const server = await startMetricsServer(metrics, config.metrics.port, config.host);
  logger.info({ port: server.port }, 'metrics on their own port (GET /metrics)');
  return server;
}
