/** Small type guards shared by the rules: the rules receive `unknown` and must never crash. */

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string =>
  typeof value === 'string' && UUID_PATTERN.test(value);

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Length in Unicode code points: what a user (and Postgres) calls characters, unlike `.length`. */
export function charLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** JSON-ish name of a value's type, for messages such as "must be a string, got number". */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** `null` and `undefined` both mean "not given" for optional request fields. */
export const isAbsent = (value: unknown): value is null | undefined =>
  value === undefined || value === null;
