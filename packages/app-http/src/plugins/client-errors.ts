/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers or URL over the size
 * limit, malformed request lines, a client too slow to send its headers) are answered in the
 * error envelope too, not in Fastify's own `{ error, message, statusCode }` shape.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { HttpError } from '../errors.ts';

function errorFor(code: string | undefined): HttpError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new HttpError(408, 'request_timeout', 'the request was not received in time');
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new HttpError(
      431,
      'headers_too_large',
      'the request line and headers are too large (a long URL counts)',
    );
  }
  return new HttpError(400, 'bad_request', 'the request is not valid HTTP');
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

export function createClientErrorHandler(log: () => FastifyBaseLogger) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const answer = errorFor(error.code);
    log().debug({ code: error.code, status: answer.statusCode }, answer.message);
    if (socket.writable) {
      const body = JSON.stringify(answer.toBody());
      socket.write(
        `HTTP/1.1 ${answer.statusCode} ${REASONS[answer.statusCode]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
