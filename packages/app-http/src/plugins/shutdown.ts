import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from '../errors.ts';

/**
 * While the server drains (SIGTERM), requests that still arrive on open connections get a 503
 * `shutting_down` in the error envelope (instead of Fastify's own body), with Retry-After and
 * Connection: close so the client reconnects elsewhere.
 */
export const shutdownGuard = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onRequest', async (_request, reply) => {
      if (!closing) return;
      reply.header('Connection', 'close');
      throw new HttpError(503, 'shutting_down', 'the server is shutting down; retry shortly', {
        headers: { 'Retry-After': '1' },
      });
    });
  },
  { name: 'shutdown-guard' },
);
