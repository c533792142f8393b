import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 hex of the canonical JSON body. */
export const requestHash = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
