/**
 * Rows of the metrics tables as the domain sees them, and the rows the batched statements send
 * as JSON (json_to_recordset): one serialisation and one statement for any number of updates.
 */
import {
  METRIC_NAMES,
  type MetricSnapshot,
  type MetricTrack,
  type MetricValues,
  type TrackUpdate,
} from '@social-publisher/domain';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { MetricSnapshotsTable, MetricTracksTable } from '../schema.ts';
import { readTrackFromRow } from './read-track-rows.ts';

/** A bigint (a number through int8.ts; a SUM cast back to bigint) or NULL, as a count. */
export const toCount = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

/** The nine metric columns of a row, by their domain names. */
export function metricsOf(row: Record<string, unknown>): MetricValues {
  return Object.fromEntries(METRIC_NAMES.map((name) => [name, toCount(row[name])])) as MetricValues;
}

/** `prefix.views, prefix.impressions, ...`: the metric columns in a SQL list. */
export const metricColumnList = (prefix: string): RawBuilder<unknown> =>
  sql.raw(METRIC_NAMES.map((name) => `${prefix}${name}`).join(', '));

/** `views bigint, impressions bigint, ...`: the metric columns of a json_to_recordset. */
export const metricColumnTypes = sql.raw(METRIC_NAMES.map((name) => `${name} bigint`).join(', '));

export function trackFromRow(row: Selectable<MetricTracksTable>): MetricTrack {
  return {
    ...readTrackFromRow(row),
    takenAt: row.taken_at,
    // Never read yet: no numbers at all, rather than nine nulls that would mean "not reported".
    metrics: row.taken_at === null ? null : metricsOf(row),
  };
}

export function snapshotFromRow(row: Selectable<MetricSnapshotsTable>): MetricSnapshot {
  return {
    id: row.id,
    targetId: row.target_id,
    takenAt: row.taken_at,
    metrics: metricsOf(row),
    raw: row.raw,
    sandbox: row.sandbox,
  };
}

/**
 * One update as a json_to_recordset row. `n`: its place in the call, so that when a call
 * changes one track twice the last change is the one kept (as applying them in turn would).
 */
export function updateRow(update: TrackUpdate, n: number): Record<string, unknown> {
  const snapshot = update.snapshot;
  return {
    n,
    target_id: update.targetId,
    state: update.state,
    step: update.step,
    due_at: update.dueAt?.toISOString() ?? null,
    error: update.error,
    snapshot_id: snapshot?.id ?? null,
    taken_at: snapshot?.takenAt.toISOString() ?? null,
    raw: snapshot?.raw ?? null,
    sandbox: snapshot?.sandbox ?? null,
    ...(snapshot ? snapshot.metrics : {}),
  };
}
