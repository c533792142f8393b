import { countingSince, nextSlotAt, paceMarginMs } from '../policies/pacing.ts';
import type { ConnectionPacer, PaceDecision, PaceState, RateLimit } from '../ports/pacer.ts';

interface Slot {
  at: number;
  /** The holder a reserved slot waits for; null once the call is made. */
  reservedFor: string | null;
}

interface Budget {
  slots: Slot[];
  blockedUntil: number;
}

/**
 * The pacer of one process (embedded mode, tests): the same rules as the Redis one, in memory.
 * A connection's entry goes away once nothing in it counts any more.
 */
export function createMemoryPacer(): ConnectionPacer {
  const budgets = new Map<string, Budget>();

  const budgetOf = (key: string, limit: RateLimit | null, now: number): Budget => {
    const budget = budgets.get(key) ?? { slots: [], blockedUntil: 0 };
    if (limit) {
      const since = countingSince(limit, now);
      budget.slots = budget.slots.filter((slot) => slot.at > since);
    }
    budgets.set(key, budget);
    return budget;
  };
  const forgetIfIdle = (key: string, budget: Budget, now: number): void => {
    if (budget.slots.length === 0 && budget.blockedUntil <= now) budgets.delete(key);
  };
  const add = (budget: Budget, slot: Slot): void => {
    budget.slots.push(slot);
    budget.slots.sort((a, b) => a.at - b.at);
  };

  return {
    async take(key, limit, holder, date): Promise<PaceDecision> {
      const now = date.getTime();
      const budget = budgetOf(key, limit, now);
      const index = budget.slots.findIndex((slot) => slot.reservedFor === holder);
      const reserved = budget.slots[index];
      if (reserved) {
        budget.slots.splice(index, 1);
        // A slot reserved before the platform refused calls is no longer a promise.
        if (reserved.at >= budget.blockedUntil) {
          if (reserved.at > now + paceMarginMs(limit) / 2) {
            add(budget, reserved);
            return { ok: false, retryAt: new Date(reserved.at) };
          }
          add(budget, { at: Math.max(now, reserved.at), reservedFor: null });
          return { ok: true };
        }
      }
      const at = nextSlotAt(
        budget.slots.map((slot) => slot.at),
        limit,
        now,
        budget.blockedUntil,
      );
      if (at <= now) {
        add(budget, { at: now, reservedFor: null });
        return { ok: true };
      }
      add(budget, { at, reservedFor: holder });
      return { ok: false, retryAt: new Date(at) };
    },

    async observe(key, until, date): Promise<void> {
      const now = date.getTime();
      const budget = budgetOf(key, null, now);
      budget.blockedUntil = Math.max(budget.blockedUntil, until.getTime());
      forgetIfIdle(key, budget, now);
    },

    async state(key, limit, date): Promise<PaceState> {
      const now = date.getTime();
      const budget = budgetOf(key, limit, now);
      const times = budget.slots.map((slot) => slot.at);
      forgetIfIdle(key, budget, now);
      return stateOf(times, budget.blockedUntil, limit, now);
    },

    async close(): Promise<void> {
      budgets.clear();
    },
  };
}

/** A connection's budget as reported, from its counting slots (ascending) and its block. */
export function stateOf(
  times: readonly number[],
  blockedUntil: number,
  limit: RateLimit,
  now: number,
): PaceState {
  const blocked = blockedUntil > now;
  const remaining = blocked ? 0 : Math.max(0, limit.count - times.length);
  const first = times[0];
  const resetsAt =
    remaining === 0
      ? nextSlotAt(times, limit, now, blockedUntil)
      : first === undefined
        ? null
        : first + limit.windowMs + paceMarginMs(limit);
  return {
    remaining,
    resetsAt: resetsAt === null ? null : new Date(resetsAt),
    waiting: times.filter((at) => at > now).length,
    blockedUntil: blocked ? new Date(blockedUntil) : null,
  };
}
