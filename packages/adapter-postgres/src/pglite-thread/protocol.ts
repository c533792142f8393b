/**
 * Messages between the embedded database's thread (worker.ts) and the process (dialect.ts).
 * Rows and parameters cross as structured clones: Dates, parsed JSON and byte arrays keep
 * their types. A database error crosses as its fields and is rebuilt as an Error carrying them,
 * so callers read `code`, `constraint` and `detail` as they would from PGlite itself.
 */

export interface StartData {
  /** PGlite's data directory. */
  directory: string;
}

export type Request =
  | { id: number; op: 'query'; sql: string; params: readonly unknown[] }
  | { id: number; op: 'close' };

export type Reply =
  | { id: number; ok: true; rows: Record<string, unknown>[]; affectedRows: number | null }
  | { id: number; ok: false; error: ErrorFields };

/** What the thread says once, before any reply: PGlite opened, or why not. */
export type Started = { op: 'ready' } | { op: 'failed'; error: ErrorFields };

export type ErrorFields = Record<string, string | number | undefined> & { message: string };

/** PostgreSQL's error fields worth keeping (PGlite's DatabaseError has them all). */
const FIELDS = [
  'name',
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
] as const;

export function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: ErrorFields = { message: error.message };
  for (const field of FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number') fields[field] = value;
  }
  return fields;
}

export function errorFrom(fields: ErrorFields): Error {
  const { message, name, ...rest } = fields;
  const error = new Error(message);
  if (typeof name === 'string') error.name = name === 'error' ? 'DatabaseError' : name;
  return Object.assign(error, rest);
}
