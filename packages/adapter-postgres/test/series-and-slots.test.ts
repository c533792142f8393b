// Repeating posts and posting slots on PGlite and on a real PostgreSQL server: the scenarios
// of the in-memory fakes, then races between separate pools (as separate API and worker
// processes): 20 concurrent queue requests for one connection get 20 distinct slots, and
// concurrent reconcile passes create each occurrence of a series exactly once.
import { createRepeatingPost, putSlots, queuePost, reconcile } from '@social-publisher/domain';
import {
  depsOn,
  describeSeriesAndSlots,
} from '@social-publisher/domain/contracts/series-and-slots';
import { seedConnection, seedUser } from '@social-publisher/domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Backend,
  createPostgresDatabase,
  openPgliteBackend,
  openPostgresBackend,
} from './backends.ts';

const POOLS = 20;

describe('PGlite', () => {
  let backend: Backend | undefined;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });
  describeSeriesAndSlots('pglite', async () => backend?.handle);
});

const database = await createPostgresDatabase();

if (database.skipReason !== undefined) {
  describe('postgres series and slots', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  let main: Backend | undefined;
  const pools: Backend[] = [];
  beforeAll(async () => {
    main = await openPostgresBackend(database);
    for (let i = 0; i < POOLS; i++) {
      pools.push(await openPostgresBackend(database, { poolSize: 1, migrate: false }));
    }
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
    await main?.close();
    await database.drop();
  });

  describeSeriesAndSlots('postgres', async () => main?.handle);

  describe('postgres races between pools', () => {
    it(`${POOLS} concurrent queue requests for one connection get ${POOLS} distinct slots`, async () => {
      if (!main) throw new Error('no backend');
      const setup = depsOn(main.handle, '2026-01-01T00:00:00Z');
      const alice = await seedUser(setup, 'queue-race@example.com');
      const x = (await seedConnection(setup, alice.user.id, 'twitter')).id;
      const slots = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({
        day,
        time: '12:00',
      }));
      expect((await putSlots(setup, alice.actor, x, { timezone: 'UTC', slots })).ok).toBe(true);

      const results = await Promise.all(
        pools.map((pool, index) =>
          queuePost(depsOn(pool.handle, '2026-01-01T00:00:00Z'), alice.ctx, {
            content: `race ${index}`,
            social_account_ids: [x],
          }),
        ),
      );
      const times = results.map((result) => {
        if (!result.ok) throw new Error(result.error.message);
        return (result.value.scheduledAt as Date).toISOString();
      });
      expect(new Set(times).size).toBe(POOLS);
      // And they are the first 20 days' slots, none skipped.
      expect([...times].sort()).toEqual(
        Array.from({ length: POOLS }, (_, day) =>
          new Date(Date.UTC(2026, 0, 1 + day, 12)).toISOString(),
        ),
      );
    }, 60_000);

    it('concurrent reconcile passes in separate pools create each occurrence once', async () => {
      if (!main) throw new Error('no backend');
      const setup = depsOn(main.handle, '2026-01-01T00:00:00Z');
      const alice = await seedUser(setup, 'series-race@example.com');
      const x = (await seedConnection(setup, alice.user.id, 'twitter')).id;
      const created = await createRepeatingPost(
        setup,
        alice.ctx,
        { content: 'race', social_account_ids: [x], scheduled_at: '2026-01-02T12:00:00Z' },
        { rrule: 'FREQ=HOURLY', timezone: 'UTC' },
      );
      if (!created.ok) throw new Error(created.error.message);
      // Ten hours later: two occurrences ahead are missing, every pool tries to create them.
      await Promise.all(
        pools.map((pool) => reconcile(depsOn(pool.handle, '2026-01-02T22:00:00Z'))),
      );
      const series = await main.handle.repos.series.listOccurrences(
        created.value.seriesId as string,
      );
      expect(series.map((o) => o.occurrenceAt.toISOString())).toEqual([
        '2026-01-02T12:00:00.000Z',
        '2026-01-02T13:00:00.000Z',
        '2026-01-02T23:00:00.000Z',
        '2026-01-03T00:00:00.000Z',
      ]);
      const posts = await Promise.all(
        series.map((o) => main?.handle.repos.posts.findById(o.postId)),
      );
      expect(posts.every((post) => post?.seriesId === created.value.seriesId)).toBe(true);
    }, 60_000);
  });
}
