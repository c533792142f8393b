/**
 * One log line per request, when its answer is sent, and the request's latency in the metrics
 * (by route pattern, never by URL: one series per route, whatever the ids).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { redactUrl } from '../logger.ts';
import type { MetricsExposition } from '../routes/metrics.ts';

export const accessLog = fp(
  async (app: FastifyInstance, options: { metrics?: MetricsExposition | undefined }) => {
    const { metrics } = options;
    app.addHook('onResponse', async (request, reply) => {
      metrics?.httpRequest(
        request.method,
        request.routeOptions.url ?? 'unmatched',
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      request.log.info(
        {
          method: request.method,
          // The query's credentials (an OAuth callback's code and state, a key) never reach a log.
          url: redactUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
          // The client's address (through TRUST_PROXY's proxies): who sent what, and whose
          // failed credentials the per-address limit counted.
          ip: request.ip,
        },
        'request',
      );
    });
  },
  { name: 'access-log' },
);
