/**
 * The one writer of every webhook delivery's JSON body (docs/api.md#webhook-payload). The keys
 * come in the documented order: `event`, `account_id`, then what the event is about (`post_id`
 * for a post's events; `social_account_id` and `platform` for a connection's), `timestamp`,
 * `data`, and `event_id` last. The SPEC's post events were sent without `event_id`: appending it
 * keeps their earlier bytes a prefix of the new ones, so a receiver reading the old keys sees
 * the same values in the same places.
 */
import type { WebhookEvent } from './model.ts';

/** A connection an event is about, as its payload names it. */
export interface EventConnection {
  id: string;
  platform: string;
}

export interface EventPayloadInput {
  event: WebhookEvent;
  accountId: string;
  /** The post the event is about; null for a connection's events. */
  postId: string | null;
  /** The connection a `social_account.*` event is about (absent on post events). */
  connection?: EventConnection;
  /** When the event happened; a Date is written as ISO 8601 UTC. */
  timestamp: Date | string;
  /** The event's own fields, already in their documented order and wire names. */
  data: object;
  /** One id per event: the same in every webhook's delivery of it. */
  eventId: string;
}

/** The exact bytes that are signed, stored and sent: built once, never re-serialised. */
export function buildEventPayload(input: EventPayloadInput): string {
  const about =
    input.postId !== null
      ? { post_id: input.postId }
      : input.connection
        ? { social_account_id: input.connection.id, platform: input.connection.platform }
        : {};
  return JSON.stringify({
    event: input.event,
    account_id: input.accountId,
    ...about,
    timestamp:
      typeof input.timestamp === 'string' ? input.timestamp : input.timestamp.toISOString(),
    data: input.data,
    event_id: input.eventId,
  });
}
