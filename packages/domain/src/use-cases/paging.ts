/**
 * Keyset paging over rows ordered by (created_at desc, id desc), the same for every list (posts,
 * media): a checked page request, the opaque cursor, and the page cut from one extra row.
 */
import { type DomainError, type Problem, validationFailed } from '../errors.ts';
import { err, ok, type Result } from '../result.ts';
import { isUuid } from '../rules/shape.ts';

/** The largest page any list serves (posts, media). */
export const MAX_PAGE_SIZE = 500;

const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;

/** The opaque cursor after `row`: base64url of `${created_at ISO}|${id}`. */
export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(`${row.createdAt.toISOString()}|${row.id}`, 'utf8').toString('base64url');
}

/** The position a cursor from `encodeCursor` names, or null when it is not one. */
export function decodeCursor(cursor: string): { createdAt: Date; id: string } | null {
  if (cursor.length > 200 || !CURSOR_PATTERN.test(cursor)) return null;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.toString('base64url') !== cursor) return null;
  const [iso, id, ...rest] = bytes.toString('utf8').split('|');
  if (iso === undefined || id === undefined || rest.length > 0 || !isUuid(id)) return null;
  const createdAt = new Date(iso);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== iso) return null;
  return { createdAt, id };
}

/** A page request checked: its limit in range and its cursor one of ours (every problem named). */
export function pageRequest(page: {
  limit: number;
  before?: string;
}): Result<{ limit: number; before?: { createdAt: Date; id: string } }, DomainError> {
  const problems: Problem[] = [];
  const { limit } = page;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    problems.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
  const before = page.before === undefined ? undefined : decodeCursor(page.before);
  if (before === null) problems.push({ field: 'before', message: 'is not a valid cursor' });
  if (problems.length > 0 || before === null) return err(validationFailed(problems));
  return ok({ limit, ...(before ? { before } : {}) });
}

/**
 * A page of `limit` rows from `found`, asked for one more row than the page holds: that extra
 * row tells whether another page follows, so the last page says so itself.
 */
export function pageOf<T extends { createdAt: Date; id: string }>(
  found: T[],
  limit: number,
): { items: T[]; nextCursor: string | null } {
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: found.length > limit && last ? encodeCursor(last) : null };
}
