/**
 * POST /posts/queue's search for a free slot walks forward from now a week at a time and stops
 * at the first free one: it never reads a year of slots and posts to answer for next Monday, and
 * at the largest slot table it stays cheap.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_SLOTS, SLOT_DAYS } from '../src/index.ts';
import { createTestDeps, seedConnection, seedUser } from '../src/testing/index.ts';
import { createPost } from '../src/use-cases/posts.ts';
import { putSlots, queuePost } from '../src/use-cases/slots.ts';

const DAY_MS = 86_400_000;

async function setUp(connections: number, slots: Array<{ day: string; time: string }>) {
  const deps = createTestDeps({ now: '2026-01-01T00:00:00Z', ids: { newId: () => randomUUID() } });
  const alice = await seedUser(deps, 'alice@example.com');
  const ids: string[] = [];
  for (let i = 0; i < connections; i++) {
    const connection = await seedConnection(deps, alice.user.id, 'twitter');
    const zone = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'][i % 4] as string;
    const put = await putSlots(deps, alice.actor, connection.id, { timezone: zone, slots });
    expect(put.ok).toBe(true);
    ids.push(connection.id);
  }
  const asked: Array<[Date, Date]> = [];
  const scheduledTimes = deps.repos.slots.scheduledTimes.bind(deps.repos.slots);
  deps.repos.slots.scheduledTimes = async (connectionIds, from, to) => {
    asked.push([from, to]);
    return scheduledTimes(connectionIds, from, to);
  };
  return { deps, alice, ids, asked };
}

const hourly = SLOT_DAYS.flatMap((day) =>
  Array.from({ length: 24 }, (_, hour) => ({ day, time: `${String(hour).padStart(2, '0')}:00` })),
);
const everyQuarter = SLOT_DAYS.flatMap((day) =>
  Array.from({ length: 96 }, (_, quarter) => ({
    day,
    time: `${String(Math.floor(quarter / 4)).padStart(2, '0')}:${String((quarter % 4) * 15).padStart(2, '0')}`,
  })),
);

describe('the search for a free slot', () => {
  it('reads one week of posts when the first week has a free slot', async () => {
    const { deps, alice, ids, asked } = await setUp(50, hourly);
    const queued = await queuePost(deps, alice.ctx, { content: 'next', social_account_ids: ids });
    if (!queued.ok) throw new Error(queued.error.message);
    expect(queued.value.scheduledAt?.toISOString()).toBe('2026-01-01T00:30:00.000Z'); // 06:00 in Kolkata
    expect(asked).toHaveLength(1);
    const [from, to] = asked[0] as [Date, Date];
    expect(to.getTime() - from.getTime()).toBeLessThanOrEqual(7 * DAY_MS);
  });

  it('walks on past full weeks to the first free slot', async () => {
    const { deps, alice, ids, asked } = await setUp(1, [{ day: 'mon', time: '09:00' }]);
    // The first three Mondays (09:00 UTC) are taken.
    for (const day of ['2026-01-05', '2026-01-12', '2026-01-19']) {
      const taken = await createPost(
        deps,
        alice.ctx,
        { content: day, social_account_ids: ids, scheduled_at: `${day}T09:00:00Z` },
        'scheduled',
      );
      expect(taken.ok).toBe(true);
    }
    const queued = await queuePost(deps, alice.ctx, { content: 'q', social_account_ids: ids });
    if (!queued.ok) throw new Error(queued.error.message);
    expect(queued.value.scheduledAt?.toISOString()).toBe('2026-01-26T09:00:00.000Z');
    expect(asked).toHaveLength(4);
  });

  it(`the largest table (${MAX_SLOTS} slots) on many connections in four zones answers`, async () => {
    expect(everyQuarter).toHaveLength(MAX_SLOTS);
    const { deps, alice, ids, asked } = await setUp(20, everyQuarter);
    const queued = await queuePost(deps, alice.ctx, { content: 'q', social_account_ids: ids });
    expect(queued.ok).toBe(true);
    expect(asked).toHaveLength(1);
  });
});
