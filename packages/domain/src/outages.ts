/**
 * Outages of the service's own dependencies: the database, the queue's Redis, the pacer's
 * Redis, the media store. An outage is not a bug and not the caller's fault: the API answers
 * 503 `service_unavailable` with Retry-After, and the worker waits it out without spending a
 * job's attempt. The adapters say so with one error, `DependencyUnavailableError`, so that the
 * API and the worker recognise an outage without knowing any driver.
 *
 * Why the recognition of transports (`isTransportFailure`) lives here and not in a package of
 * its own: it is a pure function over the shapes of errors (a `code`, a `message`, a `cause`),
 * it imports nothing and does no I/O, and every adapter that must translate already depends on
 * the domain. It is the other half of this error's contract ("these shapes are outages"), and
 * holding it beside the error keeps it in one place without a package, a manifest and four
 * more dependency edges for fifty lines.
 */
import { errorMessage } from './errors.ts';

/** Which of the service's own dependencies could not be reached. */
export type Dependency = 'database' | 'queue' | 'pacer' | 'media store';

/** A dependency could not be reached right now; `cause` is the driver's own error. */
export class DependencyUnavailableError extends Error {
  readonly dependency: Dependency;

  constructor(dependency: Dependency, cause: unknown) {
    super(`the ${dependency} is unreachable: ${errorMessage(cause)}`, { cause });
    this.name = 'DependencyUnavailableError';
    this.dependency = dependency;
  }
}

/**
 * Node's socket errors: the peer refused, reset, vanished, or its name did not resolve.
 * Every transport the service uses (pg, ioredis, the S3 client) surfaces them as they are.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** The connection-loss messages of pg and ioredis, which carry no code. */
const LOST_CONNECTION = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  /connection is closed/i,
  /reached the max retries per request limit/i,
  /stream isn't writeable/i,
];

/** How deep the causes of an error are searched (a driver wraps, a caller wraps again). */
const MAX_DEPTH = 4;

function codeOf(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `error` says a transport failed (the dependency is unreachable) rather than that a
 * request was wrong: Node's socket errors, PostgreSQL's SQLSTATE classes 08 (connection
 * exception) and 57P (operator intervention: the server is shutting down or starting), and
 * the connection-loss messages of pg and ioredis; also when one of those is its cause, or one
 * of an AggregateError's errors (pg's connect tries every address of a host).
 */
export function isTransportFailure(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH) return false;
  const code = codeOf(error);
  if (code !== undefined) {
    if (SOCKET_CODES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && LOST_CONNECTION.some((pattern) => pattern.test(message))) {
    return true;
  }
  const { errors, cause } = error as { errors?: unknown; cause?: unknown };
  if (Array.isArray(errors) && errors.some((inner) => isTransportFailure(inner, depth + 1))) {
    return true;
  }
  return cause !== undefined && cause !== error && isTransportFailure(cause, depth + 1);
}

/**
 * What an adapter throws in place of `error`: a `DependencyUnavailableError` naming
 * `dependency` when the transport failed (the original kept as its cause), else `error` as it
 * came (a constraint violation, a bug).
 */
export function translateOutage(dependency: Dependency, error: unknown): unknown {
  if (error instanceof DependencyUnavailableError) return error;
  return isTransportFailure(error) ? new DependencyUnavailableError(dependency, error) : error;
}

/**
 * The outage `error` reports, if any: a `DependencyUnavailableError` itself or among its
 * causes (a caller may wrap it, as the migrations do with the driver's error).
 */
export function outageOf(error: unknown, depth = 0): DependencyUnavailableError | undefined {
  if (error instanceof DependencyUnavailableError) return error;
  if (typeof error !== 'object' || error === null || depth >= MAX_DEPTH) return undefined;
  const { cause } = error as { cause?: unknown };
  return cause !== undefined && cause !== error ? outageOf(cause, depth + 1) : undefined;
}
