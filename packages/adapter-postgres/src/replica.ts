/**
 * The optional read replica (DATABASE_REPLICA_URL): its own small pool, the monitor that says
 * when it may answer, and the primary's repositories with list and metrics reads routed to it.
 */
import type { Logger, Repositories } from '@social-publisher/domain';
import { Kysely } from 'kysely';
import { reportingOutages } from './outages.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { createReplicaMonitor, type ReplicaMonitor, type ReplicaState } from './replica-monitor.ts';
import { type ReplicaReadCounts, routeReadsToReplica } from './replica-reads.ts';
import type { Database } from './schema.ts';
import { createStorage } from './unit-of-work.ts';

export interface ReplicaOptions {
  url: string;
  /** Reads go to the primary while the replica is further behind than this (default 2000). */
  maxLagMs?: number;
  /** How often the replica's position is checked (default 500). */
  probeIntervalMs?: number;
  poolSize: number;
  preparedStatements: boolean;
}

/** What the database handle says about its replica. */
export interface ReplicaStatus {
  state(): ReplicaState;
  /** Reads answered by each side since opening. */
  readonly counts: Readonly<ReplicaReadCounts>;
}

export interface OpenedReplica {
  repos: Repositories;
  status: ReplicaStatus;
  close(): Promise<void>;
}

/**
 * Opens the replica beside `primaryDb` and returns `primaryRepos` with the replica's reads
 * routed. Opening never fails on the replica's account: an unreachable one is only `down`.
 */
export function openReplica(
  options: ReplicaOptions,
  primaryDb: Kysely<Database>,
  primaryRepos: Repositories,
  logger?: Logger,
): OpenedReplica {
  // A short connect timeout: a replica that vanished must not hold a read for long before it
  // is asked of the primary.
  const dialect = postgresDialect(
    options.url,
    options.poolSize,
    options.preparedStatements,
    logger,
    2_000,
  );
  const replicaDb = new Kysely<Database>({ dialect: reportingOutages(dialect) });
  const monitor: ReplicaMonitor = createReplicaMonitor({
    primary: primaryDb,
    replica: replicaDb,
    maxLagMs: options.maxLagMs ?? 2_000,
    probeIntervalMs: options.probeIntervalMs ?? 500,
    ...(logger ? { logger } : {}),
  });
  const counts: ReplicaReadCounts = { replica: 0, primary: 0, fellBack: 0 };
  const { repos: replicaRepos } = createStorage(replicaDb);
  return {
    repos: routeReadsToReplica(primaryRepos, replicaRepos, monitor, counts),
    status: { state: () => monitor.state(), counts },
    close: async () => {
      monitor.close();
      await replicaDb.destroy();
    },
  };
}
