// Discord's error answers as a publish ends: which are the webhook gone (connect again), a wait,
// a refusal or an outage. See docs/platforms.md#discord.
import { connectionExpired, fail } from '../shared/outcome.ts';
import { retryAtFrom, throttled } from '../shared/rate-limit.ts';
import type { DiscordError } from './api.ts';

/** A 429 without `retry_after` or `Retry-After` waits this long (the bucket is 2 seconds). */
export const DISCORD_THROTTLE_WAIT_MS = 5_000;

/** Unknown Webhook, Invalid Webhook Token: the webhook was deleted or its token reset. */
export const WEBHOOK_GONE_CODES = new Set([10015, 50027]);

export const webhookGone = (answer: DiscordError): boolean =>
  answer.status === 401 ||
  answer.status === 404 ||
  (answer.code !== undefined && WEBHOOK_GONE_CODES.has(answer.code));

/** Discord's JSON code as our error code, else the HTTP status. */
export const codeOf = (answer: DiscordError): string =>
  answer.code !== undefined && answer.code !== 0 ? String(answer.code) : `http_${answer.status}`;

/**
 * 401/404 (Unknown Webhook, Invalid Webhook Token): the connection is expired, the channel must
 * be connected again with a new webhook URL. 429: wait `retry_after` seconds. 413: the files are
 * over the server's upload limit. 5xx: retried. Other 4xx: failed with Discord's words.
 */
export function discordFailure(answer: DiscordError): Error {
  const message = `Discord ${answer.what}: ${answer.message}`;
  if (webhookGone(answer)) {
    return connectionExpired(
      `${message} (the webhook was deleted or its URL reset: connect the channel again with a new webhook URL)`,
    );
  }
  if (answer.status === 429) {
    const seconds = answer.retryAfter;
    const headers =
      seconds === undefined ? answer.headers : { 'retry-after': `${Math.ceil(seconds)}` };
    return throttled(codeOf(answer), message, retryAtFrom(headers, DISCORD_THROTTLE_WAIT_MS));
  }
  if (answer.status === 413) {
    return fail(
      'payload_too_large',
      `${message} (the files are over this server's upload limit)`,
      false,
    );
  }
  return fail(codeOf(answer), message, answer.status >= 500 || answer.status === 408);
}
