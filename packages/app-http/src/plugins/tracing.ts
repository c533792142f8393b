/**
 * The server span of each request, registered only when tracing is on (buildApp's `tracing`):
 * named by the method and the route template (`POST /posts`, `GET /posts/:id`), never the raw
 * URL, so no id, token or query string reaches a span; an incoming W3C `traceparent` continues
 * the client's trace. The request runs inside the span's context, so the use case's enqueue
 * and database calls are its children, and log lines carry its trace_id.
 */
import { type ServerSpan, startServerSpan } from '@social-publisher/telemetry';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const spans = new WeakMap<FastifyRequest, ServerSpan>();

/**
 * Probes asked every few seconds by orchestrators and scrapers: a trace each would bury the
 * requests worth reading.
 */
const UNTRACED_ROUTES = new Set(['/health', '/metrics']);

export const tracing = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', (request, _reply, done) => {
      // Unmatched URLs (404) are named by the method alone: the path could be anything.
      const route = request.routeOptions.url;
      if (route !== undefined && UNTRACED_ROUTES.has(route)) {
        done();
        return;
      }
      const span = startServerSpan(
        route ? `${request.method} ${route}` : request.method,
        request.headers,
        {
          'http.request.method': request.method,
          ...(route ? { 'http.route': route } : {}),
          'url.scheme': request.protocol,
        },
      );
      spans.set(request, span);
      span.activate(request.raw, done);
    });
    app.addHook('onResponse', (request, reply, done) => {
      spans.get(request)?.end(reply.statusCode);
      done();
    });
    // A client that went away gets no response: its span ends all the same.
    app.addHook('onRequestAbort', (request, done) => {
      spans.get(request)?.end(499);
      done();
    });
  },
  { name: 'tracing' },
);
