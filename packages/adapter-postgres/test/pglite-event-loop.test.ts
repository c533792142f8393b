import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, openPgliteBackend } from './backends.ts';

describe('PGlite keeps the event loop turning', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  });
  afterAll(() => backend.close());

  it('lets timers run between queries of a tight loop (a draining worker must not starve HTTP)', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 1);
    try {
      const startedAt = performance.now();
      let queries = 0;
      // Back-to-back queries for ~300 ms, never awaiting anything but the database.
      while (performance.now() - startedAt < 300) {
        await sql`select 1`.execute(backend.handle.db);
        queries += 1;
      }
      expect(queries).toBeGreaterThan(10);
    } finally {
      clearInterval(timer);
    }
    // PGlite answers from its own thread, as messages (macrotasks): timers run between them.
    // (PGlite on this thread resolved in microtasks, and the interval never fired.)
    expect(ticks).toBeGreaterThan(5);
  });
});
