/** What operators see: the log level, the metrics endpoint and the queue dashboard. */
import type { Env } from '../env-readers.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface OperatorConfig {
  logLevel: (typeof LOG_LEVELS)[number];
  metrics: {
    /** METRICS_TOKEN: GET /metrics on the API's port, with `Authorization: Bearer <token>`. */
    token: string | null;
    /** METRICS_PORT: GET /metrics on a port of its own, no credential (workers too). */
    port: number | null;
  };
  admin: {
    /** ADMIN_TOKEN: the credential of /admin/queues (Bearer, or Basic with it as password). */
    token: string | null;
    /** ADMIN_QUEUES_WRITE: let the dashboard retry, promote and remove jobs (default read-only). */
    queuesWritable: boolean;
  };
}

export function readOperator(e: Env): OperatorConfig {
  return {
    logLevel: e.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    metrics: {
      token: readToken(e, 'METRICS_TOKEN'),
      port: e.string('METRICS_PORT') === null ? null : e.int('METRICS_PORT', 0, 0, 65535),
    },
    admin: {
      token: readToken(e, 'ADMIN_TOKEN'),
      queuesWritable: e.bool('ADMIN_QUEUES_WRITE', false),
    },
  };
}

/** A shared secret an operator sets: long enough that guessing it is not a plan. */
function readToken(e: Env, name: string): string | null {
  const value = e.string(name);
  if (value === null || value.length >= 16) return value;
  return e.report(name, `must be at least 16 characters, got ${value.length}`, null);
}
