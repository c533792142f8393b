// Telegram Bot API calls (docs/platforms.md#telegram): `POST <base>/bot<token>/<method>` with a
// JSON body, answered `{ ok: true, result }` or `{ ok: false, error_code, description,
// parameters? }`. The bot token is part of every URL, so no URL is ever put in a message: each
// message names the method only, and anything that could echo the token is scrubbed.
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { apiCall, asString, excerpt, isRecord } from '../shared/http.ts';
import { connectionExpired, fail, PublishFailure } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';

export const LABEL = 'Telegram';

/** A 429 without `retry_after` waits this long (Telegram's limits are per second and minute). */
export const TELEGRAM_THROTTLE_WAIT_MS = 60_000;

/** What an error answer says: Telegram's `error_code` and `description`, and its parameters. */
export interface TelegramError {
  method: string;
  /** The HTTP status (Telegram's `error_code` is the same number). */
  status: number;
  description: string;
  /** `parameters.retry_after`: seconds to wait (429). */
  retryAfter: number | undefined;
  /** `parameters.migrate_to_chat_id`: the group became a supergroup with this id. */
  migrateTo: string | undefined;
}

/** Thrown by `botCall` for every answer that is not `{ ok: true }`. */
export class TelegramAnswerError extends Error {
  readonly answer: TelegramError;
  constructor(answer: TelegramError) {
    super(`${answer.method}: ${answer.description}`);
    this.name = 'TelegramAnswerError';
    this.answer = answer;
  }
}

/** `text` with every occurrence of the bot token masked (the token never reaches a message). */
export function scrubToken(text: string, token: string): string {
  return token === '' ? text : text.split(token).join('<bot token>');
}

function errorOf(method: string, status: number, json: unknown, text: string): TelegramError {
  const body = isRecord(json) ? json : {};
  const parameters = isRecord(body.parameters) ? body.parameters : {};
  const retryAfter =
    typeof parameters.retry_after === 'number' ? parameters.retry_after : undefined;
  const code = typeof body.error_code === 'number' ? body.error_code : status;
  return {
    method,
    status: code,
    description: asString(body.description) ?? (excerpt(text) || `HTTP ${status}`),
    retryAfter,
    migrateTo: asString(parameters.migrate_to_chat_id),
  };
}

/**
 * One Bot API method with `params` as JSON; returns `result`. A non-ok answer throws
 * TelegramAnswerError, a transport failure a PublishFailure whose message holds no URL.
 */
export async function botCall(
  base: string,
  token: string,
  runtime: PublisherRuntime,
  signal: AbortSignal,
  call: { method: string; params?: Record<string, unknown> },
): Promise<unknown> {
  const { method } = call;
  let response: Awaited<ReturnType<typeof apiCall>>;
  try {
    response = await apiCall(
      runtime,
      signal,
      {
        url: `${base}/bot${token}/${method}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(call.params ?? {}),
      },
      `${LABEL} ${method}`,
    );
  } catch (error) {
    throw scrubbed(error, token);
  }
  const json = response.json;
  if (response.status === 200 && isRecord(json) && json.ok === true) return json.result;
  const answer = errorOf(method, response.status, json, response.text);
  throw new TelegramAnswerError({ ...answer, description: scrubToken(answer.description, token) });
}

/** A transport failure whose message might name the URL (it never should): masked anyway. */
function scrubbed(error: unknown, token: string): unknown {
  if (!(error instanceof PublishFailure) || error.outcome.kind !== 'failed') return error;
  const message = scrubToken(error.outcome.message, token);
  return new PublishFailure({ ...error.outcome, message }, { maybeSent: error.maybeSent });
}

/** Telegram's `error_code` as our error code (its description holds the same words). */
export function codeOf(status: number): string {
  const named: Record<number, string> = {
    400: 'bad_request',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    413: 'request_entity_too_large',
    429: 'too_many_requests',
  };
  return named[status] ?? `http_${status}`;
}

/**
 * A Bot API error answer as a publish sees it. 401: the token was revoked (a bot token cannot be
 * renewed: connect again). 429: wait `retry_after` seconds. A group that became a supergroup
 * (`migrate_to_chat_id`): the chat must be connected again under its new id. 5xx: retried.
 * Other 4xx (a chat the bot left, a media URL Telegram could not fetch...): failed.
 */
export function telegramFailure(answer: TelegramError): Error {
  const message = `${LABEL} ${answer.method}: ${answer.description}`;
  const code = codeOf(answer.status);
  if (answer.status === 401) {
    return connectionExpired(
      `${message} (the bot token was revoked or replaced: connect the chat again with the bot's current token)`,
    );
  }
  if (answer.status === 429) {
    const headers =
      answer.retryAfter === undefined ? {} : { 'retry-after': `${answer.retryAfter}` };
    return throttled(code, message, retryAtFrom(headers, TELEGRAM_THROTTLE_WAIT_MS));
  }
  if (answer.migrateTo !== undefined) {
    return fail(
      'chat_migrated',
      `${message} (the group is now the supergroup ${answer.migrateTo}: connect it again)`,
      false,
    );
  }
  return fail(code, message, answer.status >= 500 || answer.status === 408);
}

/** Runs `call`, turning a Bot API error answer into what a publish ends with. */
export async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof TelegramAnswerError) throw telegramFailure(error.answer);
    throw error;
  }
}
