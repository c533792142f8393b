import { STATUS_CODES } from 'node:http';
import {
  type Logger,
  parseRetryAfter,
  type WebhookRequest,
  type WebhookSender,
  type WebhookSendResult,
} from '@social-publisher/domain';
import {
  checkUrl,
  createGuardedDispatcher,
  findRefusal,
  HostResolutionError,
  type Resolver,
} from '@social-publisher/net-guard';
import { type Dispatcher, request } from 'undici';

export interface WebhookSenderOptions {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: skip the SSRF address checks. Local development only. */
  allowPrivateNetworks: boolean;
  /** WEBHOOK_ALLOW_HTTP: accept `http:` URLs. Local development only. */
  allowHttp: boolean;
  /** Whole attempt: DNS, connect, request, response headers and capped body. Default 10 s. */
  timeoutMs?: number;
  /** Response body bytes read (for the error text) before the stream is destroyed. Default 4096. */
  maxResponseBytes?: number;
  /** DNS resolver for the guard; default node:dns lookup (A and AAAA). Tests inject one. */
  resolver?: Resolver;
  logger?: Logger;
  /** Clock for Retry-After dates. Default Date.now. */
  now?: () => number;
}

export interface ClosableWebhookSender extends WebhookSender {
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

/** Headers the sender owns: computed by undici from the URL and body, or hop-by-hop. */
const OWNED_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

const USER_AGENT = 'SocialPublisher-Webhooks/1.0';
const ERROR_SNIPPET_CHARS = 200;

class DeliveryTimeoutError extends Error {
  override readonly name = 'DeliveryTimeoutError';
}

function errorCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

function oneLine(text: string, max: number): string {
  // Control characters (CR, LF, ESC...) become spaces: the text ends up in logs and the API.
  let printable = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    printable += code < 0x20 || code === 0x7f ? ' ' : char;
  }
  const clean = printable.replace(/\s+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads at most `cap` bytes of a response body, then destroys the stream (a receiver that
 * streams megabytes cannot hold the worker). Never throws: on abort or a broken stream it
 * returns what it has.
 */
async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = chunk as Buffer;
      const room = cap - size;
      chunks.push(buffer.length > room ? buffer.subarray(0, room) : buffer);
      size += Math.min(buffer.length, room);
      if (size >= cap) break;
    }
  } catch {
    // Aborted by the timeout, or the receiver reset the connection: keep what was read.
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return Buffer.concat(chunks);
}

/** The attempt's headers: the domain's, less those the sender owns, with a User-Agent. */
function outgoingHeaders(given: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!OWNED_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) {
    headers['user-agent'] = USER_AGENT;
  }
  return headers;
}

/** Why a receiver's non-2xx answer is not a delivery: a redirect (never followed) or a status. */
function refusalOfAnswer(
  statusCode: number,
  headers: Record<string, string | string[] | undefined>,
  snippet: string,
): string {
  if (statusCode >= 300 && statusCode < 400) {
    const location = headerValue(headers, 'location');
    return location === undefined
      ? `redirect not followed: HTTP ${statusCode} without a Location header`
      : `redirect not followed: HTTP ${statusCode} to ${oneLine(location, 300)}`;
  }
  const text = STATUS_CODES[statusCode];
  const body = oneLine(snippet, ERROR_SNIPPET_CHARS);
  return `HTTP ${statusCode}${text ? ` ${text}` : ''}${body ? `: ${body}` : ''}`;
}

/** What a request that got no answer reports, and whether another attempt may succeed. */
function failureOfRequest(reason: unknown): { message: string; retryable: boolean } {
  if (reason instanceof DeliveryTimeoutError || reason instanceof HostResolutionError) {
    return { message: reason.message, retryable: true };
  }
  if (errorCode(reason) === 'UND_ERR_INVALID_ARG') {
    // A header or body undici refuses to send: our bug, a retry sends the same thing.
    return { message: `invalid request: ${(reason as Error).message}`, retryable: false };
  }
  if (reason instanceof Error) {
    const code = errorCode(reason);
    const cause = errorCode((reason as { cause?: unknown }).cause);
    const detail = `${code ?? reason.name}${cause && cause !== code ? ` (${cause})` : ''}`;
    return {
      message: `network error: ${detail}: ${oneLine(reason.message, ERROR_SNIPPET_CHARS)}`,
      retryable: true,
    };
  }
  return { message: `network error: ${String(reason)}`, retryable: true };
}

/**
 * The domain's WebhookSender over undici and the shared SSRF guard.
 *
 * One attempt = one POST of `request.body`, byte for byte, with `request.headers` (the
 * domain computes event, signatures and ids; the sender adds only `User-Agent` when absent).
 * Outcome mapping (the domain owns the retry schedule and the 410 rule):
 * - 2xx: delivered (error null).
 * - refused URL or address (scheme, credentials, private/internal address, literal or
 *   resolved): statusCode null, retryable false. Nothing is sent.
 * - network error, DNS failure, timeout: statusCode null, retryable true.
 * - 3xx: never followed; error names the Location; retryable true (the receiver can fix it).
 * - 410: retryable false (the domain disables the webhook).
 * - 429, 5xx and other 4xx: retryable true; receivers often answer 4xx while misconfigured or
 *   deploying, and the schedule bounds the cost. `Retry-After` is reported when present.
 */
export function createWebhookSender(options: WebhookSenderOptions): ClosableWebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 4096;
  const now = options.now ?? Date.now;
  const logger = options.logger;
  const policy = {
    allowHttp: options.allowHttp,
    allowPrivateNetworks: options.allowPrivateNetworks,
  };

  if (options.allowHttp) {
    logger?.warn(
      { allowHttp: true, component: 'webhooks' },
      'WEBHOOK_ALLOW_HTTP is ON: webhook payloads may be sent over plain http, readable and forgeable in transit. Local development ONLY.',
    );
  }
  const dispatcher = createGuardedDispatcher({
    allowPrivateNetworks: options.allowPrivateNetworks,
    connectTimeoutMs: timeoutMs,
    label: 'webhooks (WEBHOOK_ALLOW_PRIVATE_NETWORKS)',
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(logger ? { logger } : {}),
  });

  async function send(webhook: WebhookRequest): Promise<WebhookSendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (error: string, retryable: boolean): WebhookSendResult => ({
      statusCode: null,
      error,
      durationMs: elapsed(),
      retryAfterMs: null,
      retryable,
    });

    const pre = checkUrl(webhook.url, policy);
    if (!pre.ok) {
      // The address and its range go to the log only: the error is shown to the API client.
      logger?.warn({ refusal: pre.detail }, 'webhook delivery refused before connecting');
      return failure(`refused: ${pre.reason}`, false);
    }
    const origin = pre.url.origin; // logged instead of the URL: paths often carry tokens

    const headers = outgoingHeaders(webhook.headers);

    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DeliveryTimeoutError(`timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      const response = await request(pre.url, {
        method: 'POST',
        body: Buffer.from(webhook.body, 'utf8'),
        headers,
        dispatcher,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const statusCode = response.statusCode;
      const responseHeaders = response.headers;
      const snippet = (await readCapped(response.body, maxResponseBytes)).toString('utf8');
      const durationMs = elapsed();

      if (statusCode >= 200 && statusCode < 300) {
        logger?.debug({ origin, statusCode, durationMs }, 'webhook delivered');
        return { statusCode, error: null, durationMs, retryAfterMs: null, retryable: false };
      }

      const retryAfterMs = parseRetryAfter(responseHeaders['retry-after'], now());
      const error = refusalOfAnswer(statusCode, responseHeaders, snippet);
      const retryable = statusCode !== 410;
      logger?.info({ origin, statusCode, durationMs, retryable }, 'webhook delivery failed');
      return { statusCode, error, durationMs, retryAfterMs, retryable };
    } catch (caught) {
      const refusal = findRefusal(caught);
      if (refusal !== null) {
        // The guard logged the address and its range; the client reads only the reason.
        logger?.warn(
          { origin, refusal: refusal.detail ?? refusal.reason },
          'webhook delivery refused by the SSRF guard',
        );
        return failure(`refused: ${refusal.reason}`, false);
      }
      const reason = controller.signal.aborted ? controller.signal.reason : caught;
      const { message, retryable } = failureOfRequest(reason);
      logger?.info({ origin, error: message, retryable }, 'webhook delivery failed');
      return failure(message, retryable);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send,
    close: () => dispatcher.close(),
  };
}
