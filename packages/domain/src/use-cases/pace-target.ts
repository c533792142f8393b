import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { PostTarget, SocialAccount } from '../model.ts';
import type { JobContext, RateLimit } from '../ports/index.ts';

/** The pacer's key of a connection: its budget is the platform's, per connection. */
export const paceKey = (connection: Pick<SocialAccount, 'id' | 'platform'>): string =>
  `${connection.platform}:${connection.id}`;

const UNITS: ReadonlyArray<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1_000, 's'],
];

/** `6 per 60 s`-like wording of a limit, for messages. */
export function describeRateLimit(limit: RateLimit): string {
  const unit = UNITS.find(([ms]) => limit.windowMs % ms === 0);
  const window = unit ? `${limit.windowMs / unit[0]} ${unit[1]}` : `${limit.windowMs} ms`;
  return `${limit.count} per ${window}`;
}

export interface PaceWait {
  until: Date;
  limit: RateLimit;
}

/**
 * Thrown by a publish request's `beforeCountedCall` when the connection is out of budget: the
 * publisher lets it through untouched, and the run ends with the target waiting for its slot.
 */
export class PaceDeferral extends Error {
  readonly wait: PaceWait;
  constructor(wait: PaceWait) {
    super(`waiting for the platform's limit until ${wait.until.toISOString()}`);
    this.name = 'PaceDeferral';
    this.wait = wait;
  }
}

/**
 * Asks the pacer for the counted call of one target: null to go ahead, or the slot reserved for
 * it. A job that has already waited as often as it may is let through (the platform decides),
 * and a pacer that cannot answer lets the call through too: the platform's own refusal is
 * still honoured, so an outage of the pacer costs refused calls, never a post.
 */
export async function paceTarget(
  deps: CoreDeps,
  target: PostTarget,
  connection: SocialAccount,
  job: JobContext,
): Promise<PaceWait | null> {
  const limit = deps.pacing?.limitOf(connection.platform) ?? null;
  if (!deps.pacing || limit === null || job.waits >= deps.settings.publishMaxWaits) return null;
  try {
    const decision = await deps.pacing.pacer.take(
      paceKey(connection),
      limit,
      target.id,
      deps.clock.now(),
    );
    return decision.ok ? null : { until: decision.retryAt, limit };
  } catch (error) {
    deps.logger.warn(
      { targetId: target.id, err: errorMessage(error) },
      'pacer unavailable: calling the platform unpaced',
    );
    return null;
  }
}

/**
 * The platform refused calls until `retryAt`: the whole connection waits for it, and this target
 * gets the next free slot from then on (so the waiting targets of one connection come back one
 * after the other, not all at the reset). Without pacing, the platform's time as it is.
 */
export async function afterPlatformRefusal(
  deps: CoreDeps,
  target: PostTarget,
  connection: SocialAccount | null,
  retryAt: Date,
): Promise<Date> {
  const limit = connection ? (deps.pacing?.limitOf(connection.platform) ?? null) : null;
  if (!deps.pacing || !connection || limit === null) return retryAt;
  try {
    const key = paceKey(connection);
    const now = deps.clock.now();
    await deps.pacing.pacer.observe(key, retryAt, now);
    const decision = await deps.pacing.pacer.take(key, limit, target.id, now);
    return decision.ok
      ? retryAt
      : new Date(Math.max(decision.retryAt.getTime(), retryAt.getTime()));
  } catch (error) {
    deps.logger.warn(
      { targetId: target.id, err: errorMessage(error) },
      'pacer unavailable: waiting for the platform reset alone',
    );
    return retryAt;
  }
}
