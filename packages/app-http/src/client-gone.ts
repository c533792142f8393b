/**
 * An AbortSignal for work done only for the client's answer (media probes of a dry run): it
 * aborts when the connection closes before the answer was sent, with a 499 as its reason, so
 * the work stops instead of probing for nobody. Work that changes data never listens to it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './errors.ts';

export function clientGoneSignal(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const gone = () => {
    if (reply.raw.writableFinished) return;
    controller.abort(
      new HttpError(499, 'client_closed_request', 'the client closed the connection first'),
    );
  };
  // The response closes with its connection, or once it was sent (then nothing is aborted).
  reply.raw.once('close', gone);
  if (request.raw.socket?.destroyed) gone();
  return controller.signal;
}
