/** A platform's limit on one connection: at most `count` counted calls in any `windowMs`. */
export interface RateLimit {
  count: number;
  windowMs: number;
}

/**
 * The answer to "may this holder make the counted call now?": yes (the call is counted from
 * now), or not before `retryAt`, a slot reserved for this holder alone, so the waiting holders
 * of one connection come back one after the other instead of all at the same instant.
 */
export type PaceDecision = { ok: true } | { ok: false; retryAt: Date };

/** What is known of a connection's budget (our own count, plus the platform's last refusal). */
export interface PaceState {
  /** Calls that could be made right now. */
  remaining: number;
  /** When the next call is allowed if none is left now; else when the oldest counted call leaves the window; null: nothing counted. */
  resetsAt: Date | null;
  /** Holders waiting with a reserved slot. */
  waiting: number;
  /** Until when the platform itself refused calls (its 429), if that is still ahead. */
  blockedUntil: Date | null;
}

/**
 * Paces calls per connection ahead of a platform's limit, shared by every process that
 * publishes (Redis in production, memory in the embedded mode). Keys name a connection and
 * its platform; holders name who waits (a target), so asking again is idempotent.
 */
export interface ConnectionPacer {
  take(key: string, limit: RateLimit, holder: string, now: Date): Promise<PaceDecision>;
  /** The platform refused calls until `until`: no slot is handed out before it. */
  observe(key: string, until: Date, now: Date): Promise<void>;
  state(key: string, limit: RateLimit, now: Date): Promise<PaceState>;
  close(): Promise<void>;
}
