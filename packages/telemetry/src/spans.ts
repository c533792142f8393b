/**
 * The spans the service writes itself, through `@opentelemetry/api` only: without a started SDK
 * every call here is the API's no-op (no span, no id, nothing kept), which is what keeps the hot
 * paths cheap when tracing is off. The SDK, when an endpoint is set, is started by start.ts.
 *
 * Never put a credential, a token, a secret or a post's content in a name or an attribute:
 * callers pass ids, methods, routes and queue names only.
 */
import type { EventEmitter } from 'node:events';
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/** The tracer of the service's own spans (instrumentation scope name). */
export const TRACER_NAME = '@social-publisher/telemetry';
/**
 * The API's proxy tracer: a no-op until the SDK registers its provider, then that provider's
 * tracer (taken once, here, rather than on every span).
 */
const tracer = trace.getTracer(TRACER_NAME);

export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';
const KINDS: Record<SpanKindName, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

export interface InSpanOptions {
  kind: SpanKindName;
  attributes?: Attributes;
  /**
   * Continue this W3C `traceparent` (a job's, carried in its data) instead of the active span;
   * undefined: the active context is the parent.
   */
  traceparent?: string | undefined;
}

/** Ends `span` for an error: its type and message only (error messages carry no secrets). */
function recordFailure(span: Span, error: unknown): void {
  const name = error instanceof Error ? error.name : typeof error;
  span.setAttribute('error.type', name);
  span.setStatus({ code: SpanStatusCode.ERROR, message: name });
}

/**
 * Runs `fn` inside a new span (the active one while it runs) and ends it when `fn` settles; a
 * throw marks the span as an error and is rethrown. The one helper for the service's manual
 * spans.
 */
export function inSpan<T>(name: string, options: InSpanOptions, fn: () => Promise<T>): Promise<T> {
  const parent =
    options.traceparent === undefined
      ? context.active()
      : contextOfTraceparent(options.traceparent);
  const span = tracer.startSpan(
    name,
    {
      kind: KINDS[options.kind],
      ...(options.attributes ? { attributes: options.attributes } : {}),
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn();
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The active span as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), for a job's data;
 * undefined when there is none (always so without the SDK). Ids and a flag only: nothing else
 * of the context travels.
 */
export function activeTraceparent(): string | undefined {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** A context whose parent is the remote span of `traceparent`; the root context if malformed. */
export function contextOfTraceparent(traceparent: unknown): Context {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return ROOT_CONTEXT;
  const spanContext = {
    traceId: match[1] ?? '',
    spanId: match[2] ?? '',
    traceFlags: Number.parseInt(match[3] ?? '0', 16),
    isRemote: true,
  };
  return isSpanContextValid(spanContext)
    ? trace.setSpanContext(ROOT_CONTEXT, spanContext)
    : ROOT_CONTEXT;
}

/** `trace_id` and `span_id` of the active span, for a log line; empty without one. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** A request's server span, started by the HTTP layer and ended when the response is sent. */
export interface ServerSpan {
  /**
   * Runs `fn` (the rest of the request's processing) with the span active, and binds the
   * request stream's listeners to it too: a body arrives in the socket's own async context,
   * and the handler that runs once it is parsed must stay in the span.
   */
  activate(stream: EventEmitter, fn: () => void): void;
  /** Ends the span with the response's status (5xx: an error). Later calls do nothing. */
  end(statusCode: number): void;
}

/**
 * Starts the server span of one request: `name` is the method and the route template
 * (`POST /posts`, `GET /posts/:id`), never the raw URL; an incoming `traceparent` header
 * continues the client's trace (through the W3C propagator the SDK registers).
 */
export function startServerSpan(
  name: string,
  headers: Record<string, string | string[] | undefined>,
  attributes: Attributes,
): ServerSpan {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  let ended = false;
  const active = trace.setSpan(parent, span);
  return {
    activate(stream, fn) {
      context.bind(active, stream);
      context.with(active, fn);
    },
    end(statusCode) {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', statusCode);
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
