/**
 * Keeps a PostgreSQL process's lookup cache (lookup-cache.ts) honest: one dedicated connection
 * LISTENs to the change notices of migration 0004 and empties the cache at each one.
 *
 * The cache is trusted only while notices are known to arrive:
 * - at start, and again every `pingEveryMs`, the process sends itself a ping on the same
 *   channel through its ordinary pool, the way any writer's notice travels; the cache is
 *   trusted once the ping comes back, and distrusted (emptied, every lookup asks the database)
 *   when one does not come back within `pingTimeoutMs`;
 * - a listener connection that errors or ends is distrusted at once and opened again.
 * So a notice can be missed only if the listener's connection dies silently, and then for at
 * most one ping period plus its timeout. Behind a pooler that cannot carry LISTEN (PgBouncer in
 * transaction pooling) the ping never comes back and the cache simply stays off.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { doublingDelay, type Logger } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { LookupCache } from './lookup-cache.ts';
import { LOOKUP_CHANNEL, LOOKUP_TRIGGERS } from './migrations/0004_lookup_change_notices.ts';
import { WEBHOOK_LOOKUP_TRIGGERS } from './migrations/0020_webhook_change_notices.ts';

/** Every trigger that sends change notices: all must be there for the cache to be trusted. */
const NOTICE_TRIGGERS = [...LOOKUP_TRIGGERS, ...WEBHOOK_LOOKUP_TRIGGERS];

import type { Database } from './schema.ts';

export interface LookupListenerOptions {
  databaseUrl: string;
  cache: LookupCache;
  /** The process's own pool: pings travel through it, as every writer's notices do. */
  db: Kysely<Database>;
  logger?: Logger;
  /** Default 5 s. */
  pingEveryMs?: number;
  /** Default 2 s. */
  pingTimeoutMs?: number;
  /** Wait before opening a lost listener connection again (default 1 s, growing to 30 s). */
  reconnectMs?: number;
}

export interface LookupListener {
  close(): Promise<void>;
}

const PING = 'ping:';
const MAX_RECONNECT_MS = 30_000;

/**
 * The ping is sent only if all of migrations 0004's and 0020's triggers exist and are enabled: without them
 * (a schema not yet migrated, a trigger disabled by hand) writers send no notices, and the
 * cache must stay off. PostgreSQL delivers notices in commit order, so a ping that came back
 * also means every notice committed before it has arrived.
 */
const sendPing = (db: Kysely<Database>, payload: string) =>
  sql`select pg_notify(${LOOKUP_CHANNEL}, ${payload})
      where (select count(*) from pg_trigger
             where tgenabled <> 'D'
               and (tgrelid, tgname) in (${sql.join(
                 NOTICE_TRIGGERS.map(
                   ({ table, trigger }) => sql`(to_regclass(${table}), ${trigger}::name)`,
                 ),
               )})) = ${NOTICE_TRIGGERS.length}`.execute(db);

export function startLookupListener(options: LookupListenerOptions): LookupListener {
  const { cache, logger } = options;
  const pingEveryMs = options.pingEveryMs ?? 5_000;
  const pingTimeoutMs = options.pingTimeoutMs ?? 2_000;
  const firstReconnectMs = options.reconnectMs ?? 1_000;
  /** Reconnects in a row since the notices last came through. */
  let reconnects = 0;
  let client: pg.Client | null = null;
  /** A connection being opened (ended by close, so a shutdown never waits for its timeout). */
  let opening: pg.Client | null = null;
  let closed = false;
  let pingTimer: NodeJS.Timeout | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  /** The ping in flight: its payload and what to do when it comes back. */
  let pending: { payload: string; arrived(): void } | null = null;
  /** Said once per outage, not at every retry. */
  let warned = false;

  const distrust = (why: string): void => {
    if (closed) return; // close() has turned the cache off already
    if (cache.trusted)
      logger?.warn({ reason: why }, 'lookup cache off until change notices arrive');
    else if (!warned) logger?.warn({ reason: why }, 'lookup cache stays off');
    warned = true;
    cache.trust(false);
  };

  /** One ping: resolves true if it came back in time. */
  async function ping(): Promise<boolean> {
    const payload = `${PING}${randomUUID()}`;
    let arrived = () => {};
    const back = new Promise<true>((resolve) => {
      arrived = () => resolve(true);
    });
    pending = { payload, arrived };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), pingTimeoutMs);
    });
    try {
      await sendPing(options.db, payload);
      return await Promise.race([back, late]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      if (pending?.payload === payload) pending = null;
    }
  }

  async function check(): Promise<void> {
    if (closed || client === null) return;
    const listening = client;
    if (await ping()) {
      if (closed || client !== listening) return;
      if (!cache.trusted) logger?.info({}, 'lookup cache on: change notices arrive');
      warned = false;
      reconnects = 0;
      cache.trust(true);
    } else if (!closed) {
      distrust('a change-notice ping did not come back in time');
      // The connection may be dead without knowing it: open a fresh one.
      drop(listening);
    }
  }

  function schedulePing(): void {
    if (closed || pingTimer) return;
    pingTimer = setInterval(() => void check(), pingEveryMs);
    pingTimer.unref();
  }

  function drop(which: pg.Client): void {
    if (client !== which) return;
    client = null;
    // A dead socket may end long after its successor took over: nothing it says counts now
    // (an 'error' listener stays, so a late error cannot crash the process).
    for (const event of ['notification', 'end', 'error'] as const) which.removeAllListeners(event);
    which.on('error', () => {});
    which.end().catch(() => {});
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnectTimer) return;
    reconnects += 1;
    reconnectTimer = setTimeout(
      () => {
        reconnectTimer = null;
        void connect();
      },
      doublingDelay(reconnects, firstReconnectMs, MAX_RECONNECT_MS),
    );
    reconnectTimer.unref();
  }

  async function connect(): Promise<void> {
    if (closed) return;
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: 'social-publisher-lookups',
      connectionTimeoutMillis: 10_000,
      // A listener that stopped hearing is found by the pings; keepalive finds a dead peer too.
      keepAlive: true,
    });
    next.on('notification', (message) => {
      if (message.channel !== LOOKUP_CHANNEL) return;
      const payload = message.payload ?? '';
      if (payload.startsWith(PING)) {
        if (pending?.payload === payload) pending.arrived();
        return; // another process's ping changes nothing
      }
      cache.invalidate();
    });
    next.on('error', (error) => {
      distrust(`listener connection error: ${error.message}`);
      drop(next);
    });
    next.on('end', () => {
      if (closed) return;
      distrust('listener connection ended');
      drop(next);
    });
    opening = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${LOOKUP_CHANNEL}`);
    } catch (error) {
      if (closed) return;
      distrust(`cannot listen for change notices: ${(error as Error).message}`);
      next.removeAllListeners('end');
      next.end().catch(() => {});
      scheduleReconnect();
      return;
    } finally {
      if (opening === next) opening = null;
    }
    if (closed) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    await check();
    schedulePing();
  }

  cache.trust(false);
  // The first connection: settled once its ping came back or failed to (then the cache is off).
  const ready = connect();
  return {
    async close() {
      closed = true;
      cache.trust(false);
      if (pingTimer) clearInterval(pingTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const last = client;
      client = null;
      if (opening) {
        // end() waits for a server that may never answer (and leaves the pending connect
        // unsettled); cutting the socket fails that connect, and so `ready`, at once.
        const { connection } = opening as unknown as { connection?: { stream?: Socket } };
        connection?.stream?.destroy();
      }
      await ready.catch(() => {});
      if (last) {
        last.removeAllListeners('end');
        await last.end().catch(() => {});
      }
    },
  };
}
