/**
 * The one byte range of a `Range: bytes=...` header (RFC 9110 §14.1.2): `a-b`, `a-` or `-n`.
 * Several ranges, or another unit, are ignored (the whole body is an allowed answer to them).
 */
export type RangeAnswer =
  | { kind: 'whole' }
  | { kind: 'range'; start: number; end: number }
  | { kind: 'unsatisfiable' };

export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return { kind: 'whole' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // The last n bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  // `b < a` is no valid range: the header is ignored.
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end };
}
