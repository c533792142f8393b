/**
 * THE error mapper: every failure the API answers with goes through `toHttpError`, and every
 * error body is `{ error: { code, message, details? } }` (docs/api.md#errors). Anything it
 * does not recognise is a 500 `internal_error`, logged with its stack; no input may get there.
 * An unreachable database or queue is a 503 `service_unavailable` with Retry-After: the
 * adapters report it as the domain's `DependencyUnavailableError` (no driver is known here).
 */
import { type DomainError, outageOf, type Problem, type Result } from '@social-publisher/domain';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemsFromSchemaIssues, type SchemaIssue } from './validation.ts';

/** What a 503 asks clients to wait: a database restart or failover takes seconds. */
const UNAVAILABLE_RETRY_AFTER_S = 5;

export interface ErrorBody {
  error: { code: string; message: string; details?: Problem[] };
}

/** A failure with its HTTP status, stable snake_case code, and any headers it needs. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details: Problem[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: { details?: Problem[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: { code: this.code, message: this.message } };
    if (this.details !== undefined) body.error.details = this.details;
    return body;
  }
}

export const WWW_AUTHENTICATE = 'Bearer realm="social-publisher"';

const DOMAIN_STATUS: Record<DomainError['code'], number> = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  post_not_editable: 409,
  post_not_pending: 409,
  own_post: 403,
  limit_exceeded: 409,
  post_not_published: 409,
  platform_not_configured: 400,
  platform_auth_failed: 400,
  platform_unavailable: 503,
  no_slots: 400,
  media_too_large: 413,
  media_quota_exceeded: 413,
  media_type_mismatch: 415,
  unsupported_media_type: 415,
  comment_gone: 409,
  unsupported: 422,
  platform_refused: 422,
};

export function fromDomainError(error: DomainError): HttpError {
  const status = DOMAIN_STATUS[error.code];
  if (error.code === 'validation_failed') {
    return new HttpError(status, error.code, error.message, { details: error.details });
  }
  if (error.code === 'unauthorized') {
    return new HttpError(status, error.code, error.message, {
      headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
    });
  }
  return new HttpError(status, error.code, error.message);
}

/** The value of an ok result; a failed one is thrown as its HttpError (answered by the handler). */
export function unwrap<T>(result: Result<T, DomainError>): T {
  if (!result.ok) throw fromDomainError(result.error);
  return result.value;
}

export const unauthorizedError = (message = 'missing or invalid credential'): HttpError =>
  new HttpError(401, 'unauthorized', message, {
    headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
  });

/** Fastify's own 4xx errors, by code. */
const FRAMEWORK_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    message: 'the request body is not valid JSON',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'invalid_json',
    message: 'the request body is empty',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'payload_too_large',
    message: 'the request body is too large',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'unsupported_media_type',
    message: 'the request body must be JSON (Content-Type: application/json)',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'bad_request',
    message: 'the request body does not match its Content-Length',
  },
  FST_ERR_BAD_URL: { status: 400, code: 'bad_request', message: 'the URL is malformed' },
  // Path parameters are ids; one longer than any id is simply not found.
  FST_ERR_MAX_PARAM_LENGTH: { status: 404, code: 'not_found', message: 'resource not found' },
};

const GENERIC_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  411: 'length_required',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
};

/** `1 MiB`, `512 KiB`, `1500 bytes`: a limit as a reader thinks of it. */
export function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** What the route was: its body limit and the media types it takes (JSON unless it says). */
export interface RouteFacts {
  method: string;
  url: string | undefined;
  bodyLimit: number | undefined;
  consumes: readonly string[] | undefined;
}

function routeFactsOf(request: FastifyRequest): RouteFacts {
  const { routeOptions } = request;
  const schema = routeOptions.schema as
    | { consumes?: readonly string[]; body?: { content?: Record<string, unknown> } }
    | undefined;
  // A body documented per media type (CSV import) names the types it takes.
  const documented = schema?.body?.content ? Object.keys(schema.body.content) : undefined;
  return {
    method: request.method,
    url: routeOptions.url,
    bodyLimit: routeOptions.bodyLimit,
    consumes: schema?.consumes ?? documented,
  };
}

/**
 * Fastify's 413 and 415 name no limit and no media type; the route knows both, so a client
 * learns what to send instead (the limit that was passed, the Content-Type this route takes).
 */
function withRouteFacts(error: HttpError, route: RouteFacts | undefined): HttpError {
  if (!route) return error;
  const where = route.url ? `${route.method} ${route.url}` : 'this route';
  if (error.code === 'payload_too_large' && route.bodyLimit !== undefined) {
    return new HttpError(
      413,
      error.code,
      `the request body is larger than the ${formatBytes(route.bodyLimit)} limit of ${where}`,
    );
  }
  if (error.code === 'unsupported_media_type') {
    const types = route.consumes ?? ['application/json'];
    return new HttpError(
      415,
      error.code,
      `${where} takes the body with Content-Type: ${types.join(' or ')}`,
    );
  }
  return error;
}

type MaybeFastifyError = Partial<FastifyError> & {
  validation?: SchemaIssue[];
  validationContext?: string;
};

export function toHttpError(error: unknown, route?: RouteFacts): HttpError {
  if (error instanceof HttpError) return error;
  const candidate = (typeof error === 'object' && error !== null ? error : {}) as MaybeFastifyError;
  if (Array.isArray(candidate.validation)) {
    const details = problemsFromSchemaIssues(candidate.validation, candidate.validationContext);
    const first = details[0];
    const message =
      details.length === 1 && first
        ? `${first.field}: ${first.message}`
        : `${details.length} fields are invalid`;
    return new HttpError(400, 'validation_failed', message, { details });
  }
  if (outageOf(error)) {
    return new HttpError(
      503,
      'service_unavailable',
      'the service cannot reach its database or queue right now; retry shortly (with the same Idempotency-Key to be safe)',
      { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) } },
    );
  }
  const known = typeof candidate.code === 'string' ? FRAMEWORK_ERRORS[candidate.code] : undefined;
  if (known) return withRouteFacts(new HttpError(known.status, known.code, known.message), route);
  const status = candidate.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(
      status,
      GENERIC_CODES[status] ?? 'bad_request',
      'the request was rejected',
    );
  }
  return new HttpError(500, 'internal_error', 'an unexpected error occurred; it has been logged');
}

export function sendHttpError(reply: FastifyReply, error: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(error.toBody());
}

/** Fastify error handler (and frameworkErrors handler): map, log, answer. */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const httpError = toHttpError(error, routeFactsOf(request));
  if (httpError.code === 'service_unavailable') {
    request.log.warn(
      { err: String(error), dependency: outageOf(error)?.dependency },
      'a dependency is unreachable: answered 503',
    );
  } else if (httpError.statusCode >= 500) {
    request.log.error({ err: error }, 'unexpected error');
  } else {
    request.log.info({ code: httpError.code, status: httpError.statusCode }, httpError.message);
  }
  sendHttpError(reply, httpError);
}
