import type { IdGenerator } from '../ports/index.ts';

/**
 * Readable, ordered, valid UUIDs (version 7 and RFC variant bits set):
 * 00000000-0000-7000-8000-000000000001, ...002, ...
 */
export class SequentialIds implements IdGenerator {
  #next = 1;

  newId(): string {
    const n = this.#next++;
    return `00000000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
  }
}
