/**
 * Client spans for the outbound HTTP calls made through undici (the platforms' APIs, webhook
 * deliveries, media fetches), from undici's diagnostics channels: no patching, and subscribed
 * only when tracing started (start.ts loads this file then, never otherwise).
 *
 * A span holds the method, the host, the port, the scheme, the status and the path as a template
 * (url-template.ts); never the query string, the headers or a body. It ends when the response's
 * headers arrive (or the request fails): the body may be left unread by design (capped reads).
 */
import diagnostics from 'node:diagnostics_channel';
import { context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { pathTemplate } from './url-template.ts';

interface UndiciRequest {
  origin?: unknown;
  method?: unknown;
  path?: unknown;
}

/** Starts watching undici's requests; the returned function stops. */
export function traceUndiciRequests(tracer: Tracer): () => void {
  const spans = new WeakMap<object, Span>();

  const onCreate = (message: unknown) => {
    const request = (message as { request?: UndiciRequest }).request;
    if (!request || typeof request !== 'object') return;
    const origin = originOf(request.origin);
    const method = typeof request.method === 'string' ? request.method : 'GET';
    const template = pathTemplate(typeof request.path === 'string' ? request.path : '/');
    const span = tracer.startSpan(
      `${method} ${template}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          'server.address': origin?.hostname ?? '',
          ...(origin?.port ? { 'server.port': Number(origin.port) } : {}),
          'url.scheme': origin?.protocol.replace(':', '') ?? '',
          'url.template': template,
        },
      },
      context.active(),
    );
    spans.set(request, span);
  };

  const onHeaders = (message: unknown) => {
    const { request, response } = message as {
      request?: object;
      response?: { statusCode?: unknown };
    };
    const span = request ? spans.get(request) : undefined;
    if (!span || !request) return;
    spans.delete(request);
    const status = typeof response?.statusCode === 'number' ? response.statusCode : 0;
    span.setAttribute('http.response.status_code', status);
    if (status >= 400) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };

  const onError = (message: unknown) => {
    const { request, error } = message as { request?: object; error?: unknown };
    const span = request ? spans.get(request) : undefined;
    if (!span || !request) return;
    spans.delete(request);
    // The error's name or code only: a message may quote a URL with its query string.
    const code = (error as { code?: unknown } | null)?.code;
    const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'error';
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    span.end();
  };

  const subscriptions: Array<[string, (message: unknown) => void]> = [
    ['undici:request:create', onCreate],
    ['undici:request:headers', onHeaders],
    ['undici:request:error', onError],
  ];
  for (const [name, handler] of subscriptions) diagnostics.subscribe(name, handler);
  return () => {
    for (const [name, handler] of subscriptions) diagnostics.unsubscribe(name, handler);
  };
}

function originOf(origin: unknown): URL | null {
  try {
    return new URL(String(origin));
  } catch {
    return null;
  }
}
