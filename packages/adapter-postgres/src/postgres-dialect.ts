/** The PostgreSQL dialect: a pg pool with our type parsing, prepared statements and guards. */
import type { Logger } from '@social-publisher/domain';
import { type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import { INT8_OID, parseInt8 } from './int8.ts';
import { preparingClientClass } from './prepared.ts';

/**
 * Type parsing shared by both backends: timestamptz -> Date (both drivers' default),
 * json/jsonb -> parsed value (default), int8 (counts) -> number (overridden here; pg would
 * give a string and PGlite a bigint). Scoped to our pool/instance, not pg's global registry.
 */
const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export function postgresDialect(
  databaseUrl: string,
  poolSize: number,
  preparedStatements: boolean,
  logger?: Logger,
  /** How long a query waits for a new connection before failing (a replica wants less). */
  connectTimeoutMs = 10_000,
): Dialect {
  const pool = new pg.Pool({
    Client: preparingClientClass({ enabled: preparedStatements, ...(logger ? { logger } : {}) }),
    connectionString: databaseUrl,
    max: poolSize,
    types: pgTypes,
    application_name: 'social-publisher',
    connectionTimeoutMillis: connectTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection emits 'error' on the pool; unhandled, it would crash.
  pool.on('error', (error) => {
    logger?.warn({ err: error.message }, 'postgres pool client error');
  });
  // pg-pool removes its listener while a client is checked out, so a connection that drops
  // between two statements of a transaction would emit 'error' with no listener and crash the
  // process. The statement in flight (or the next one) fails and reaches the caller anyway; the
  // pool discards the client on release because it is no longer queryable.
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      logger?.debug({ err: error.message }, 'postgres connection lost while checked out');
    });
  });
  return new PostgresDialect({ pool });
}
