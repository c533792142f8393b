/** Fastify's own options: logging, body and time bounds, request ids, proxies, framework errors. */

import type { Server } from 'node:http';
import type { Config } from '@social-publisher/config';
import { type FastifyBaseLogger, type FastifyHttpOptions, LogController } from 'fastify';
import pino from 'pino';
import { handleError } from './errors.ts';
import { createClientErrorHandler } from './plugins/client-errors.ts';
import { requestIdOf } from './plugins/request-id.ts';

type ServerConfig = Pick<Config, 'bodyLimitBytes' | 'httpTimeouts' | 'trustProxy'>;

/** The whole request, as a backstop behind the body bound: headers, then the longest body. */
function requestTimeoutOf(timeouts: ServerConfig['httpTimeouts']): number {
  return (
    timeouts.headersMs +
    Math.max(timeouts.bodyMs, timeouts.importBodyMs, timeouts.mediaBodyMs) +
    1000
  );
}

export function serverOptions(
  config: ServerConfig,
  logger: FastifyBaseLogger | undefined,
): FastifyHttpOptions<Server> {
  const loggerInstance = logger ?? pino({ level: 'silent' });
  return {
    loggerInstance,
    bodyLimit: config.bodyLimitBytes,
    // A slow sender cannot hold a connection: its headers, then its whole request, are bounded
    // by the server itself (a bare 408, then close); the body's own bound is the body-timeout
    // plugin.
    requestTimeout: requestTimeoutOf(config.httpTimeouts),
    http: {
      headersTimeout: config.httpTimeouts.headersMs,
      // Node checks those bounds this often (30 s by default): no later than a second past.
      connectionsCheckingInterval: Math.min(1000, config.httpTimeouts.headersMs),
    },
    genReqId: requestIdOf,
    // One log line per request (the access-log plugin), each line carrying request_id.
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: true,
    }),
    routerOptions: { maxParamLength: 200 },
    // request.ip: the connection's address, or the client's as the trusted proxies report it.
    trustProxy: config.trustProxy,
    // Draining requests are answered by the shutdown-guard plugin, in the error envelope.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      handleError(error, request, reply);
    },
    clientErrorHandler: createClientErrorHandler(() => loggerInstance),
  };
}
