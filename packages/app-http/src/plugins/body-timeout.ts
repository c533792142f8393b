import type { Socket } from 'node:net';
import { type Readable, Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `import`: a CSV file, allowed HTTP_IMPORT_BODY_TIMEOUT_MS instead of the JSON bound;
     * `media`: a media upload (gigabytes), allowed HTTP_MEDIA_BODY_TIMEOUT_MS.
     */
    bodyTimeout?: 'import' | 'media';
  }
}

export interface BodyTimeouts {
  bodyMs: number;
  importBodyMs: number;
  mediaBodyMs: number;
}

const hasBody = (headers: Record<string, unknown>): boolean =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * The rest of a body nobody read, once its answer is sent (a streamed CSV refused for its query
 * string): read and dropped, or the connection would wait for it to be read and the next request
 * on it would never be seen (the client waited for the keep-alive timeout, then was reset). A
 * rest that does not arrive within the bound closes the connection.
 */
function dropUnreadRest(source: Readable, body: Transform, socket: Socket, ms: number): void {
  if (source.readableEnded || source.destroyed) return;
  source.unpipe(body);
  const bound = setTimeout(() => socket.destroy(), ms);
  const done = () => clearTimeout(bound);
  source.once('end', done);
  source.once('close', done);
  source.resume();
}

/**
 * A body must arrive within its route's bound: a client announcing a body and sending it a
 * byte at a time would otherwise hold the connection (and a rate-limit slot) for as long as it
 * likes. Past the bound the request is answered 408 in the error envelope and the connection
 * closed. The body is read through a pass-through stream so that the refusal does not destroy the
 * socket before the answer is written.
 */
export const bodyTimeout = fp(
  async (app: FastifyInstance, timeouts: BodyTimeouts) => {
    app.addHook('preParsing', async (request, reply, payload) => {
      if (!hasBody(request.headers)) return payload;
      const kind = request.routeOptions.config?.bodyTimeout;
      const ms =
        kind === 'import'
          ? timeouts.importBodyMs
          : kind === 'media'
            ? timeouts.mediaBodyMs
            : timeouts.bodyMs;
      const source = payload as Readable;
      let received = 0;
      const body = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          // Fastify compares this with Content-Length, as it would the socket's own count.
          body.receivedEncodedLength = received;
          done(null, chunk);
        },
      }) as Transform & { receivedEncodedLength: number };
      body.receivedEncodedLength = 0;
      source.pipe(body);
      const timer = setTimeout(() => {
        source.unpipe(body);
        source.pause();
        reply.header('Connection', 'close');
        body.destroy(
          new HttpError(
            408,
            'request_timeout',
            `the request body did not arrive within ${seconds(ms)}; send it at once, or a smaller one`,
          ),
        );
      }, ms);
      const settle = () => clearTimeout(timer);
      source.once('end', settle);
      source.once('close', settle);
      body.once('close', settle);
      // Answered before the body was read (a refusal, a drained upload): nothing waits for it.
      reply.raw.once('finish', () => {
        settle();
        dropUnreadRest(source, body, request.raw.socket, ms);
      });
      reply.raw.once('close', settle);
      // The refusal reaches the parser through its own listener; without one (nobody reads the
      // body any more) it must not become an uncaught exception that ends the process.
      body.on('error', () => {});
      return body;
    });
  },
  { name: 'body-timeout' },
);
