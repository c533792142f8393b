/** The worker: how many processes and jobs, how often it looks around, what a tenant may hold. */
import { availableParallelism } from 'node:os';
import type { Env } from '../env-readers.ts';

export interface WorkerConfig {
  /** How much one tenant may create: each refusal names its setting. */
  quotas: {
    /** WEBHOOKS_MAX_PER_ACCOUNT: webhooks one account may hold (default 20). */
    webhooksPerAccount: number;
    /** SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT: connections one account may hold (default 500). */
    socialAccountsPerAccount: number;
    /** WORKSPACES_MAX_PER_USER: workspaces one user may own (default 50). */
    workspacesPerUser: number;
  };
  worker: {
    concurrency: number;
    /** WORKER_PROCESSES: worker processes `start:worker` runs, supervised (default: the cores). */
    processes: number;
    maxPublishAttempts: number;
    targetLeaseMs: number;
    reconcileIntervalMs: number;
  };
}

export function readWorker(e: Env): WorkerConfig {
  return {
    quotas: {
      webhooksPerAccount: e.int('WEBHOOKS_MAX_PER_ACCOUNT', 20, 1, 1_000_000),
      socialAccountsPerAccount: e.int('SOCIAL_ACCOUNTS_MAX_PER_ACCOUNT', 500, 1, 1_000_000),
      workspacesPerUser: e.int('WORKSPACES_MAX_PER_USER', 50, 1, 1_000_000),
    },
    worker: {
      // Publish jobs mostly wait (on platforms' processing polls, on the database): a job slot
      // is cheap, and a low count lets a few slow platform processing polls hold up every post.
      concurrency: e.int('WORKER_CONCURRENCY', 32, 1, 1000),
      // One process uses one core; the database and Redis may need the others, so this is a
      // ceiling the operator lowers, not a floor.
      processes: e.int('WORKER_PROCESSES', availableParallelism(), 1, 64),
      maxPublishAttempts: e.int('PUBLISH_MAX_ATTEMPTS', 6, 1, 50),
      targetLeaseMs: e.int('TARGET_LEASE_MS', 60_000, 500, 3_600_000),
      reconcileIntervalMs: e.int('RECONCILE_INTERVAL_MS', 5_000, 100, 600_000),
    },
  };
}
