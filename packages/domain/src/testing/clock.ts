import type { Clock } from '../ports/index.ts';

export const DEFAULT_TEST_NOW = new Date('2026-01-01T00:00:00.000Z');

/** A clock that moves only when told to. */
export class FakeClock implements Clock {
  #now: number;

  constructor(start: Date | string = DEFAULT_TEST_NOW) {
    this.#now = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  set(at: Date | string): void {
    this.#now = new Date(at).getTime();
  }

  advance(ms: number): Date {
    this.#now += ms;
    return this.now();
  }
}
