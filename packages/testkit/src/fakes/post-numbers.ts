// The numbers a fake platform serves for its posts (likes, views...), under the platform's own
// metric names: set per post by tests, otherwise derived from the post's id (so end-to-end tests
// see numbers without setting any), null to leave a metric out of the answer; and posts made to
// disappear (the platform then answers its "not found").

/** A post's numbers in the platform's names; null: the platform leaves the key out. */
export type NumbersOf<N extends string> = Partial<Record<N, number | null>>;

/** A stable small number from the post id and the metric name (FNV-1a). */
export function derivedCount(id: string, name: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${id}:${name}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 1000;
}

export class PostNumbers<N extends string> {
  readonly names: readonly N[];
  readonly #set = new Map<string, NumbersOf<N>>();
  readonly #gone = new Set<string>();

  constructor(names: readonly N[]) {
    this.names = names;
  }

  /** Sets these numbers of the post (null: the platform leaves it out); the post then exists. */
  set(postId: string, values: NumbersOf<N>): void {
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

  /** A test set numbers for it and did not remove it since. */
  has(postId: string): boolean {
    return this.isSet(postId) && !this.isGone(postId);
  }

  /** The post's numbers by name: set ones, else derived; null where the platform gives none. */
  of(postId: string): Record<N, number | null> {
    const set: NumbersOf<N> = this.#set.get(postId) ?? {};
    return Object.fromEntries(
      this.names.map((name) => [
        name,
        name in set ? (set[name] ?? null) : derivedCount(postId, name),
      ]),
    ) as Record<N, number | null>;
  }

  /** The numbers the platform answers: those it reports, the keys it leaves out left out. */
  present(postId: string): Partial<Record<N, number>> {
    const numbers: Partial<Record<N, number>> = {};
    for (const [name, value] of Object.entries(this.of(postId)) as Array<[N, number | null]>) {
      if (value !== null) numbers[name] = value;
    }
    return numbers;
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
