// The numbers a fake platform answers for its posts (likes, views...), under the platform's own
// names: what a test set for a post, else numbers derived from the post's id (so an end-to-end
// test sees some without setting any). A post a test removed answers as the platform says
// "not found".

/** A post's numbers in the platform's names; null: the platform leaves the key out. */
export type NumbersOf<K extends string> = Partial<Record<K, number | null>>;

/** A stable small number from the post id and the metric name (FNV-1a). */
export function derivedCount(id: string, name: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${id}:${name}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 1000;
}

export class FakePostNumbers<K extends string> {
  readonly #names: readonly K[];
  readonly #set = new Map<string, NumbersOf<K>>();
  readonly #removed = new Set<string>();

  constructor(names: readonly K[]) {
    this.#names = names;
  }

  /** Sets some of the post's numbers (the others keep theirs); the post exists from now on. */
  set(id: string, values: NumbersOf<K>): void {
    this.#set.set(id, { ...this.#set.get(id), ...values });
    this.#removed.delete(id);
  }

  /** The post no longer exists: the platform answers "not found" for it. */
  remove(id: string): void {
    this.#removed.add(id);
  }

  isRemoved(id: string): boolean {
    return this.#removed.has(id);
  }

  /** A test set numbers for it (and did not remove it since). */
  has(id: string): boolean {
    return this.#set.has(id) && !this.#removed.has(id);
  }

  /** The numbers answered for the post, keys set to null left out. */
  of(id: string): Partial<Record<K, number>> {
    const given: NumbersOf<K> = this.#set.get(id) ?? {};
    const numbers: Partial<Record<K, number>> = {};
    for (const name of this.#names) {
      const value = name in given ? given[name] : derivedCount(id, name);
      if (value !== null && value !== undefined) numbers[name] = value;
    }
    return numbers;
  }
}
