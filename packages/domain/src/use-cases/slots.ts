/**
 * Posting slots: a connection's weekly times, and POST /posts/queue, which schedules a post at
 * the earliest slot none of its connections uses yet. The choice and the insert run in one
 * transaction holding a database lock per connection, so concurrent requests (in any number
 * of API processes) never get the same slot.
 */
import type { CoreDeps } from '../deps.ts';
import { conflict, type DomainError, noSlots, notFound, validationFailed } from '../errors.ts';
import type { AccountContext, Actor, PostWithTargets } from '../model.ts';
import type { JobMeta, SlotRepository } from '../ports/index.ts';
import { err, ok, type Result } from '../result.ts';
import type { CreatePostInput } from '../rules/post-rules.ts';
import { isUuid } from '../rules/shape.ts';
import { SLOT_HORIZON_DAYS, slotTimes, validateSlotSet } from '../rules/slots.ts';
import type { SlotSet } from '../series-model.ts';
import { canAccessAccount } from './access.ts';
import { storeEvents } from './event-deliveries.ts';
import { linkHostedMedia } from './hosted-media.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';
import { creationEvents, enqueueStoredPost, preparePost } from './posts.ts';

async function findConnection(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<string, DomainError>> {
  const connection = isUuid(id) ? await deps.repos.socialAccounts.findById(id) : null;
  const role = connection ? await canAccessAccount(deps, actor, connection.accountId) : null;
  return connection && role ? ok(connection.id) : err(notFound('social account'));
}

/** PUT /social-accounts/:id/slots: replaces the connection's slots. */
export async function putSlots(
  deps: CoreDeps,
  actor: Actor,
  socialAccountId: string,
  body: unknown,
): Promise<Result<SlotSet, DomainError>> {
  const found = await findConnection(deps, actor, socialAccountId);
  if (!found.ok) return found;
  const { problems, timezone, slots } = validateSlotSet(body);
  if (problems.length > 0) return err(validationFailed(problems));
  const set: SlotSet = {
    socialAccountId: found.value,
    timezone,
    slots,
    updatedAt: deps.clock.now(),
  };
  await deps.repos.slots.put(set);
  return ok(set);
}

/** GET /social-accounts/:id/slots: no slots yet reads as an empty list in UTC. */
export async function getSlots(
  deps: CoreDeps,
  actor: Actor,
  socialAccountId: string,
): Promise<Result<SlotSet, DomainError>> {
  const found = await findConnection(deps, actor, socialAccountId);
  if (!found.ok) return found;
  const set = await deps.repos.slots.find(found.value);
  return ok(
    set ?? {
      socialAccountId: found.value,
      timezone: 'UTC',
      slots: [],
      updatedAt: deps.clock.now(),
    },
  );
}

/** Days of slots looked at per step of the search for a free one. */
const SLOT_SEARCH_STEP_DAYS = 7;

/**
 * The earliest slot of any of `sets` after `now` that no post of the connections uses, or
 * null when none is free within SLOT_HORIZON_DAYS. Walks forward a week at a time and stops at
 * the first free slot, so the usual answer reads one week of slots and posts, not a year; sets
 * repeated across connections are expanded once.
 */
async function firstFreeSlot(
  slots: SlotRepository,
  connectionIds: string[],
  sets: Array<SlotSet | null>,
  now: Date,
): Promise<Date | null> {
  const distinct = new Map<string, SlotSet>();
  for (const set of sets) {
    if (set) distinct.set(JSON.stringify([set.timezone, set.slots]), set);
  }
  const horizonEnd = now.getTime() + SLOT_HORIZON_DAYS * 86_400_000;
  for (let from = now.getTime(); from < horizonEnd; from += SLOT_SEARCH_STEP_DAYS * 86_400_000) {
    const days = Math.min(SLOT_SEARCH_STEP_DAYS, (horizonEnd - from) / 86_400_000);
    const candidates = new Set<number>();
    for (const set of distinct.values()) {
      for (const at of slotTimes(set, new Date(from), days)) candidates.add(at.getTime());
    }
    if (candidates.size === 0) continue;
    const until = new Date(from + days * 86_400_000);
    const taken = new Set(
      (await slots.scheduledTimes(connectionIds, new Date(from), until)).map((at) => at.getTime()),
    );
    const free = [...candidates].sort((a, b) => a - b).find((at) => !taken.has(at));
    if (free !== undefined) return new Date(free);
  }
  return null;
}

/** POST /posts/queue: the post of POST /posts, scheduled at its connections' next free slot. */
export async function queuePost(
  deps: CoreDeps,
  ctx: AccountContext,
  input: CreatePostInput,
  meta: JobMeta = {},
): Promise<Result<PostWithTargets, DomainError>> {
  if (input.scheduled_at !== undefined) {
    return err(
      validationFailed([
        { field: 'scheduled_at', message: 'is not allowed here: the queue picks the time' },
      ]),
    );
  }
  // Every rule of an immediate post applies; the time comes from the slots below.
  const prepared = await preparePost(deps, ctx, input, 'now');
  if (!prepared.ok) return prepared;
  const post = prepared.value;
  const connectionIds = [...new Set(post.targets.map((target) => target.socialAccountId))].sort();
  const sets = await Promise.all(connectionIds.map((id) => deps.repos.slots.find(id)));
  const withoutSlots = connectionIds.filter((_, index) => (sets[index]?.slots.length ?? 0) === 0);
  if (withoutSlots.length > 0) {
    return err(noSlots(`no posting slots set for social account ${withoutSlots.join(', ')}`));
  }

  const stored = await deps.uow.run(async (repos) => {
    // Sorted ids: two requests sharing connections lock them in the same order (no deadlock).
    await repos.slots.lock(connectionIds);
    const free = await firstFreeSlot(repos.slots, connectionIds, sets, deps.clock.now());
    if (free === null) return null;
    // A member's post waiting for approval holds its slot meanwhile.
    const status = post.status === 'pending_approval' ? post.status : 'scheduled';
    const scheduled: PostWithTargets = { ...post, scheduledAt: free, status };
    await repos.posts.insert(scheduled);
    await linkHostedMedia(deps, repos, scheduled);
    const deliveries = await storeEvents(deps, repos, creationEvents(scheduled));
    return { post: scheduled, deliveries };
  });
  if (!stored) {
    return err(conflict(`every slot of the next ${SLOT_HORIZON_DAYS} days is taken`));
  }
  await enqueueDeliveries(deps, stored.deliveries, meta);
  await enqueueStoredPost(deps, stored.post, meta);
  return ok(stored.post);
}
