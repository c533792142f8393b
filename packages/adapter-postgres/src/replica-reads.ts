/**
 * Which reads a read replica serves, and how they fall back.
 *
 * Only lists and metrics reads go there: pages a person or a dashboard asks for, where an
 * answer up to DATABASE_REPLICA_MAX_LAG_MS old is fine. Everything else stays on the primary:
 * writes, reads inside a unit of work, and any read whose caller acts on the answer (claims,
 * due scans, lookups by id after a write, API keys and memberships). A replica that lags or
 * is down is not asked (replica-monitor.ts); a read that fails there is asked again of the
 * primary, so a replica never turns into an error.
 */
import type { Repositories } from '@social-publisher/domain';
import type { ReplicaMonitor } from './replica-monitor.ts';

/** The repository methods whose answers may come from the replica. */
export const REPLICA_READS = {
  posts: ['listByCreator'],
  media: ['listByAccount'],
  deliveries: ['listByWebhook'],
  metrics: ['listByPost', 'history', 'daily'],
} as const satisfies { [R in keyof Repositories]?: readonly (keyof Repositories[R])[] };

/** How many reads each side answered (the tests and /metrics read them). */
export interface ReplicaReadCounts {
  replica: number;
  primary: number;
  fellBack: number;
}

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * `primary` with the REPLICA_READS methods answered by `replica` while the monitor allows,
 * and by the primary otherwise or when the replica fails.
 */
export function routeReadsToReplica(
  primary: Repositories,
  replica: Repositories,
  monitor: ReplicaMonitor,
  counts: ReplicaReadCounts,
): Repositories {
  const routed: Record<string, unknown> = { ...primary };
  for (const [name, methods] of Object.entries(REPLICA_READS)) {
    const onPrimary = primary[name as keyof Repositories] as unknown as Record<string, AnyMethod>;
    const onReplica = replica[name as keyof Repositories] as unknown as Record<string, AnyMethod>;
    const repository: Record<string, unknown> = { ...onPrimary };
    for (const method of methods as readonly string[]) {
      const fromPrimary = (onPrimary[method] as AnyMethod).bind(onPrimary);
      const fromReplica = (onReplica[method] as AnyMethod).bind(onReplica);
      repository[method] = async (...args: unknown[]) => {
        if (monitor.usable()) {
          try {
            const answer = await fromReplica(...args);
            counts.replica += 1;
            return answer;
          } catch (error) {
            monitor.markDown(error);
            counts.fellBack += 1;
          }
        }
        counts.primary += 1;
        return fromPrimary(...args);
      };
    }
    routed[name] = repository;
  }
  return routed as unknown as Repositories;
}
