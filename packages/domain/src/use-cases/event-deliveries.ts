/**
 * Storing an event's deliveries: the webhooks of the account subscribed to it (and, when they
 * filter by connection, to one of the event's connections), one pending delivery each, sharing
 * one `event_id`. Stored through `repos`, which is the caller's unit of work when the change
 * that causes the event has one, so the change and its deliveries commit together; enqueued
 * only after (the reconciler enqueues any that a refused or lost enqueue leaves behind).
 */
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import { isTransportFailure, outageOf } from '../outages.ts';
import type { JobMeta, Repositories } from '../ports/index.ts';
import { type DeliveryEvent, enqueueDeliveries, pendingDeliveries } from './pending-deliveries.ts';

export interface EventToStore extends DeliveryEvent {
  /** The connections the event is about: a webhook filtered to others does not receive it. */
  socialAccountIds: readonly string[];
}

/** Stores the deliveries of each event; returns their ids, to enqueue once committed. */
export async function storeEvents(
  deps: Pick<CoreDeps, 'ids' | 'clock'>,
  repos: Pick<Repositories, 'webhooks' | 'deliveries'>,
  events: readonly EventToStore[],
): Promise<string[]> {
  const now = deps.clock.now();
  const ids: string[] = [];
  for (const { socialAccountIds, ...event } of events) {
    const webhooks = await repos.webhooks.listActiveForEvent(
      event.accountId,
      event.event,
      socialAccountIds,
    );
    const created = pendingDeliveries(deps, webhooks, event, now);
    if (created.length === 0) continue;
    await repos.deliveries.insertMany(created);
    ids.push(...created.map((delivery) => delivery.id));
  }
  return ids;
}

/**
 * For a change that is already committed and had no unit of work to share: stores the
 * deliveries right after it, then enqueues them. A crash between the change and this call
 * loses the events (the change stands); callers name it where they use it. A storage error
 * here is logged, not thrown: the change is done, and failing its request (or retrying its
 * job) would not bring the events back.
 */
export async function emitEvents(
  deps: CoreDeps,
  events: readonly EventToStore[],
  meta?: JobMeta,
): Promise<void> {
  if (events.length === 0) return;
  let stored: string[];
  try {
    stored = await storeEvents(deps, deps.repos, events);
  } catch (error) {
    // An unreachable database is an outage the service rides out (warn); anything else a bug.
    const fields = { events: events.map((event) => event.event), err: errorMessage(error) };
    const message =
      'webhook deliveries of a committed change could not be stored; the events are lost';
    if (outageOf(error) !== undefined || isTransportFailure(error)) {
      deps.logger.warn(fields, message);
    } else {
      deps.logger.error(fields, message);
    }
    return;
  }
  await enqueueDeliveries(deps, stored, meta);
}
