// What Discord says is wrong in a refused message body (its Invalid Form Body answer).

/** The deepest `errors` nesting read (`embeds.0.fields.1.name` is five). */
const MAX_DEPTH = 8;

/**
 * The first field error of an Invalid Form Body answer, as `path: message`: Discord nests them
 * by field (`{ content: { _errors: [{ code, message }] } }`, `{ files: { 0: { _errors } } }`).
 */
export function firstFieldError(errors: unknown, path: string[] = []): string | null {
  if (typeof errors !== 'object' || errors === null || path.length > MAX_DEPTH) return null;
  const record = errors as Record<string, unknown>;
  const own = record._errors;
  if (Array.isArray(own)) {
    const first = own[0] as { message?: unknown } | undefined;
    if (typeof first?.message === 'string') {
      return path.length > 0 ? `${path.join('.')}: ${first.message}` : first.message;
    }
  }
  for (const [key, value] of Object.entries(record)) {
    if (key === '_errors') continue;
    const found = firstFieldError(value, [...path, key]);
    if (found) return found;
  }
  return null;
}
