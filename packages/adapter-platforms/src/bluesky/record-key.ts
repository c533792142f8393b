// A post's record key, derived from what is published rather than drawn at random: a run that
// sent createRecord and lost the answer sends the same key again, so Bluesky either shows the
// record under it (getRecord) or refuses the second create. A post is never created twice.

import { createHash } from 'node:crypto';

/** base32-sortable, the TID alphabet. */
const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';

/**
 * A TID (13 characters: 53 bits of microseconds since 1970, 10 bits of clock id) that is the
 * same for the same target and part: the post's creation time plus the part number as the
 * microseconds, the target's id hashed as the clock id. The parts of one target are distinct
 * keys; two targets of one account collide only when their posts were created in the same
 * millisecond and their ids hash alike (1 in 1,024).
 */
export function recordKey(createdAt: Date, targetId: string, part: number): string {
  const micros = BigInt(createdAt.getTime()) * 1000n + BigInt(part);
  const clockId = BigInt(createHash('sha256').update(targetId).digest().readUInt16BE(0) & 0x3ff);
  let value = ((micros & ((1n << 53n) - 1n)) << 10n) | clockId;
  let key = '';
  for (let index = 0; index < 13; index++) {
    key = (ALPHABET[Number(value & 31n)] ?? '2') + key;
    value >>= 5n;
  }
  return key;
}

/** Part numbers: the main post, follow-up n (1-based after it), the first comment. */
export const MAIN_PART = 0;
export const followUpPart = (index: number): number => index + 1;
export const COMMENT_PART = 999;
