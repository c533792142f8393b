/**
 * Whether the read replica (DATABASE_REPLICA_URL) may answer reads now: it answers, and it has
 * replayed everything the primary had written `maxLagMs` ago.
 *
 * Every `probeIntervalMs` the monitor notes the primary's WAL position (`pg_current_wal_lsn`)
 * and asks the replica how far it has replayed (`pg_last_wal_replay_lsn`). The replica is
 * usable when its replayed position is at or past the primary's position of the newest note
 * at least `maxLagMs` old: every write committed before then is visible there. A primary with
 * no writes does not move, so an idle replica is never "lagging". A probe that fails, or a read
 * that fails on the replica (`markDown`), makes it unusable until the next probe finds it well.
 */
import { errorMessage, type Logger } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

export interface ReplicaMonitorOptions {
  primary: Kysely<Database>;
  replica: Kysely<Database>;
  maxLagMs: number;
  probeIntervalMs: number;
  logger?: Logger;
  now?: () => number;
}

export type ReplicaState = 'usable' | 'lagging' | 'down' | 'starting';

export interface ReplicaMonitor {
  /** Whether a read may go to the replica now. */
  usable(): boolean;
  state(): ReplicaState;
  /** A read failed on the replica: reads go to the primary until a probe finds it well. */
  markDown(error: unknown): void;
  /** One probe now (the timer runs them too); resolves when it is done. */
  probe(): Promise<void>;
  close(): void;
}

/** A WAL position (`16/B374D848`) as one number, for comparing. */
export function lsnValue(lsn: string): bigint {
  const [high = '0', low = '0'] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

interface PrimaryNote {
  at: number;
  lsn: bigint;
}

async function primaryPosition(db: Kysely<Database>): Promise<bigint> {
  const { rows } = await sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`.execute(db);
  return lsnValue(rows[0]?.lsn ?? '0/0');
}

/** The replica's replayed position; null when it is not replaying (a primary, or promoted). */
async function replayedPosition(db: Kysely<Database>): Promise<bigint | null> {
  const { rows } = await sql<{ recovering: boolean; replayed: string | null }>`
    SELECT pg_is_in_recovery() AS recovering, pg_last_wal_replay_lsn()::text AS replayed`.execute(
    db,
  );
  const row = rows[0];
  if (!row?.recovering) return null;
  return lsnValue(row.replayed ?? '0/0');
}

export function createReplicaMonitor(options: ReplicaMonitorOptions): ReplicaMonitor {
  const now = options.now ?? Date.now;
  const notes: PrimaryNote[] = [];
  let current: ReplicaState = 'starting';
  let running: Promise<void> | undefined;

  const become = (next: ReplicaState, detail?: string) => {
    if (next === current) return;
    const was = current;
    current = next;
    const fields = { replica: next, was, ...(detail ? { err: detail } : {}) };
    if (next === 'usable') options.logger?.info(fields, 'read replica in use');
    else if (was !== 'starting' || next === 'down') {
      options.logger?.warn(fields, 'read replica not used: reads go to the primary');
    }
  };

  /** The primary's position `maxLagMs` ago (the newest note that old); drops older notes. */
  const positionDue = (): bigint | undefined => {
    const cutoff = now() - options.maxLagMs;
    let due: PrimaryNote | undefined;
    while (notes.length > 0 && (notes[0] as PrimaryNote).at <= cutoff) {
      due = notes.shift();
    }
    if (due) notes.unshift(due);
    return due?.lsn;
  };

  const probeOnce = async () => {
    try {
      notes.push({ at: now(), lsn: await primaryPosition(options.primary) });
    } catch {
      // The primary is unreachable: every query fails anyway; the replica's state stands.
      return;
    }
    let replayed: bigint | null;
    try {
      replayed = await replayedPosition(options.replica);
    } catch (error) {
      become('down', errorMessage(error));
      return;
    }
    const due = positionDue();
    if (replayed === null) become('usable');
    else if (due === undefined) become(current === 'usable' ? 'usable' : 'starting');
    else become(replayed >= due ? 'usable' : 'lagging');
  };

  const probe = () => {
    running ??= probeOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void probe(), options.probeIntervalMs);
  timer.unref?.();
  void probe();

  return {
    usable: () => current === 'usable',
    state: () => current,
    markDown: (error) => become('down', errorMessage(error)),
    probe,
    close: () => clearInterval(timer),
  };
}
