import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** A caller's own request id is kept when it is sane: short, printable, no spaces or quotes. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Fastify `genReqId`: the incoming `X-Request-Id` if sane, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** Echoes the request id on every response (errors and 404s included). */
export const requestIdHeader = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', async (request, reply, payload) => {
      reply.header('X-Request-Id', request.id);
      return payload;
    });
  },
  { name: 'request-id' },
);
