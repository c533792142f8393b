/**
 * Text PostgreSQL cannot store: U+0000 (refused in `text` and inside `jsonb` alike) and UTF-16
 * surrogates without their pair (not Unicode text at all; JSON can spell them as `\ud800`).
 * PGlite refuses them as PostgreSQL does. Found anywhere in a value, keys included, so that
 * such a request is a 400 naming the field instead of a database error. So is JSON nested
 * deeper than `jsonb` parses (its parser runs out of stack some thousands of levels down).
 */
import type { Problem } from '../errors.ts';
import { isRecord } from './shape.ts';

const NUL = '\u0000';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Far deeper than any option needs, far shallower than PostgreSQL's parser gives up. */
export const MAX_JSON_DEPTH = 32;

/** At most this many are reported: a huge body full of them must not yield a huge reply. */
const MAX_PROBLEMS = 50;

/** Why `text` cannot be stored, or null when it can. */
export function unstorableTextReason(text: string): string | null {
  if (text.includes(NUL)) return 'must not contain the character U+0000 (NUL)';
  if (LONE_SURROGATE.test(text)) {
    return 'must not contain an unpaired UTF-16 surrogate (not valid Unicode text)';
  }
  return null;
}

/** A key as it can be shown in a field path: the unstorable characters spelled `\uXXXX`. */
const shownKey = (key: string): string =>
  key
    .replaceAll(NUL, '\\u0000')
    .replace(LONE_SURROGATES, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

const joined = (base: string, key: string): string => (base === '' ? key : `${base}.${key}`);

/** What is left to look at: a value at a path, or a key already found bad (reported in order). */
type Pending = { value: unknown; path: string; depth: number } | { badKey: string; path: string };

/**
 * Every string (and object key) of `value` that cannot be stored, with its path in the
 * domain's style (`platform_options.tiktok.title`, `media_urls[0]`); `field` names `value`
 * itself. Walks without recursion: any nesting depth a body limit allows is fine.
 */
export function validateStorableText(value: unknown, field = ''): Problem[] {
  const problems: Problem[] = [];
  const pending: Pending[] = [{ value, path: field, depth: 0 }];
  while (pending.length > 0 && problems.length < MAX_PROBLEMS) {
    const next = pending.pop() as Pending;
    if ('badKey' in next) {
      problems.push({ field: next.path, message: `is a key that ${next.badKey}` });
      continue;
    }
    const { value: current, path, depth } = next;
    if (depth > MAX_JSON_DEPTH && typeof current === 'object' && current !== null) {
      problems.push({
        field: path,
        message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep`,
      });
    } else if (typeof current === 'string') {
      const reason = unstorableTextReason(current);
      if (reason) problems.push({ field: path, message: reason });
    } else if (Array.isArray(current)) {
      // Pushed last to first, so problems come out in document order.
      for (let index = current.length - 1; index >= 0; index--) {
        pending.push({ value: current[index], path: `${path}[${index}]`, depth: depth + 1 });
      }
    } else if (isRecord(current)) {
      const keys = Object.keys(current);
      for (let index = keys.length - 1; index >= 0; index--) {
        const key = keys[index] as string;
        const at = joined(path, shownKey(key));
        pending.push({ value: current[key], path: at, depth: depth + 1 });
        const reason = unstorableTextReason(key);
        if (reason) pending.push({ badKey: reason, path: at });
      }
    }
  }
  return problems;
}
