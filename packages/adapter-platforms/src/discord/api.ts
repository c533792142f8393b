// Discord webhook calls (docs/platforms.md#discord): GET the webhook (at connect), POST to it
// with `?wait=true` (the message comes back). Errors are `{ message, code, errors?,
// retry_after? }`. The webhook's token is part of its URL: no message ever names the URL, and
// anything that could echo the token is scrubbed.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import {
  AnswerError,
  apiCall,
  asString,
  excerpt,
  type HttpResult,
  isRecord,
} from '../shared/http.ts';
import { PublishFailure } from '../shared/outcome.ts';
import { firstFieldError } from './form-errors.ts';
import { type WebhookRef, webhookEndpoint } from './webhook-url.ts';

export const LABEL = 'Discord';

/** An error answer: the HTTP status, Discord's JSON code and message, its wait. */
export interface DiscordError {
  what: string;
  status: number;
  /** Discord's JSON error code (10015 Unknown Webhook, 50035 Invalid Form Body...). */
  code: number | undefined;
  message: string;
  /** `retry_after` of a 429, in seconds. */
  retryAfter: number | undefined;
  headers: IncomingHttpHeaders;
}

export class DiscordAnswerError extends AnswerError<DiscordError> {
  override name = 'DiscordAnswerError';
  constructor(answer: DiscordError) {
    super(`${answer.what}: ${answer.message}`, answer);
  }
}

/** A message as `?wait=true` answers it (the fields we keep). */
export interface DiscordMessage {
  id: string;
  channelId: string;
}

/** `text` with every occurrence of the webhook token masked. */
export const scrubToken = (text: string, token: string): string =>
  text.split(token).join('<webhook token>');

function errorOf(what: string, response: HttpResult, token: string): DiscordError {
  const body = isRecord(response.json) ? response.json : {};
  const base = asString(body.message) ?? (excerpt(response.text) || `HTTP ${response.status}`);
  const detail = firstFieldError(body.errors);
  return {
    what,
    status: response.status,
    code: typeof body.code === 'number' ? body.code : undefined,
    message: scrubToken(detail ? `${base} (${detail})` : base, token),
    retryAfter: typeof body.retry_after === 'number' ? body.retry_after : undefined,
    headers: response.headers,
  };
}

export interface WebhookCall {
  method: 'GET' | 'POST';
  /** `wait=true`: Discord answers the message it created (else 204). */
  wait?: boolean;
  body?: { json: unknown } | { form: Readable; contentType: string; length: number };
  timeoutMs?: number;
}

/** One call to the webhook; a non-2xx answer throws DiscordAnswerError. */
export async function webhookCall(
  apiBaseUrl: string,
  ref: WebhookRef,
  runtime: PublisherRuntime,
  signal: AbortSignal,
  what: string,
  call: WebhookCall,
): Promise<HttpResult> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | Readable | null = null;
  if (call.body && 'json' in call.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.body.json);
  } else if (call.body) {
    headers['content-type'] = call.body.contentType;
    headers['content-length'] = String(call.body.length);
    body = call.body.form;
  }
  let response: HttpResult;
  try {
    const url = `${webhookEndpoint(apiBaseUrl, ref)}${call.wait ? '?wait=true' : ''}`;
    response = await apiCall(
      runtime,
      signal,
      { url, method: call.method, headers, body, timeoutMs: call.timeoutMs },
      `${LABEL} ${what}`,
    );
  } catch (error) {
    if (!(error instanceof PublishFailure) || error.outcome.kind !== 'failed') throw error;
    const message = scrubToken(error.outcome.message, ref.token);
    throw new PublishFailure({ ...error.outcome, message }, { maybeSent: error.maybeSent });
  }
  if (response.status >= 200 && response.status < 300) return response;
  throw new DiscordAnswerError(errorOf(what, response, ref.token));
}

/** The message of a `?wait=true` answer, or null when the answer holds none. */
export function messageOf(json: unknown): DiscordMessage | null {
  if (!isRecord(json)) return null;
  const id = asString(json.id);
  const channelId = asString(json.channel_id);
  return id && channelId ? { id, channelId } : null;
}
