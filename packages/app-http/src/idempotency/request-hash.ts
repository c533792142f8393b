import { createHash } from 'node:crypto';

type Piece = { text: string } | { value: unknown };

/**
 * JSON with object keys sorted at every level: equal bodies hash equally whatever their key
 * order. Written without recursion: a body nested as deep as the body limit allows (the rules
 * refuse it later, as that post's problem) must not overflow the stack first.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const pending: Piece[] = [{ value: root }];
  const pushAll = (pieces: Piece[]) => {
    for (let index = pieces.length - 1; index >= 0; index--) pending.push(pieces[index] as Piece);
  };
  while (pending.length > 0) {
    const piece = pending.pop() as Piece;
    if ('text' in piece) {
      out.push(piece.text);
      continue;
    }
    const { value } = piece;
    if (value === undefined) out.push('null');
    else if (value === null || typeof value !== 'object') out.push(JSON.stringify(value) ?? 'null');
    else if (Array.isArray(value)) {
      const pieces: Piece[] = [{ text: '[' }];
      value.forEach((item, index) => {
        if (index > 0) pieces.push({ text: ',' });
        pieces.push({ value: item });
      });
      pushAll([...pieces, { text: ']' }]);
    } else {
      const record = value as Record<string, unknown>;
      const pieces: Piece[] = [{ text: '{' }];
      Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort()
        .forEach((key, index) => {
          pieces.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(key)}:` });
          pieces.push({ value: record[key] });
        });
      pushAll([...pieces, { text: '}' }]);
    }
  }
  return out.join('');
}

/** SHA-256 hex of the canonical JSON body. */
export const requestHash = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
