// The numbers a fake platform serves for its posts (likes, views...), under the platform's own
// metric names: set per post by tests, otherwise derived from the post's id (so end-to-end tests
// see numbers without setting any), null to leave a metric out of the answer; and posts made to
// disappear (the platform then answers its "not found").

/** A stable small count for `name` of `postId`: what a post shows when no test set it. */
function derived(postId: string, index: number): number {
  let hash = 7;
  for (const char of postId) hash = (hash * 31 + char.charCodeAt(0)) % 9973;
  return ((hash + index * 37) % 90) + index + 1;
}

export class PostNumbers<N extends string> {
  readonly names: readonly N[];
  readonly #set = new Map<string, Partial<Record<N, number | null>>>();
  readonly #gone = new Set<string>();

  constructor(names: readonly N[]) {
    this.names = names;
  }

  /** Sets these numbers of the post (null: the platform leaves it out); the post then exists. */
  set(postId: string, values: Partial<Record<N, number | null>>): void {
    this.#set.set(postId, { ...this.#set.get(postId), ...values });
    this.#gone.delete(postId);
  }

  /** The post disappears: its numbers answer the platform's "not found". */
  remove(postId: string): void {
    this.#gone.add(postId);
  }

  isGone(postId: string): boolean {
    return this.#gone.has(postId);
  }

  /** Whether a test set numbers for this post (posts the fake published exist anyway). */
  isSet(postId: string): boolean {
    return this.#set.has(postId);
  }

  /** The post's numbers by name: set ones, else derived; null where the platform gives none. */
  of(postId: string): Record<N, number | null> {
    const set: Partial<Record<N, number | null>> = this.#set.get(postId) ?? {};
    return Object.fromEntries(
      this.names.map((name, index) => [
        name,
        name in set ? (set[name] ?? null) : derived(postId, index),
      ]),
    ) as Record<N, number | null>;
  }
}

/**
 * GET /{media-id}/insights?metric=a,b as Meta's Graph answers it (Instagram, Threads): each
 * asked metric the media has as `{ name, period: 'lifetime', values: [{ value }], title, id }`,
 * a metric it lacks left out; an unknown or missing `metric` is error 100, as Graph says it.
 */
export function graphInsightsAnswer<N extends string>(
  numbers: PostNumbers<N>,
  mediaId: string,
  metric: string | undefined,
): { status: 200; body: unknown } | { status: 400; code: number; message: string } {
  const asked = (metric ?? '').split(',').filter(Boolean);
  if (asked.length === 0) {
    return { status: 400, code: 100, message: '(#100) The parameter metric is required' };
  }
  const unknown = asked.find((name) => !(numbers.names as readonly string[]).includes(name));
  if (unknown !== undefined) {
    return {
      status: 400,
      code: 100,
      message: `(#100) metric[0] must be one of the following values: ${numbers.names.join(', ')}`,
    };
  }
  const values = numbers.of(mediaId);
  const data = asked.flatMap((name) => {
    const value = values[name as N];
    if (value === null) return [];
    return [
      {
        name,
        period: 'lifetime',
        values: [{ value }],
        title: name,
        description: `The ${name} of this media.`,
        id: `${mediaId}/insights/${name}/lifetime`,
      },
    ];
  });
  return { status: 200, body: { data } };
}
