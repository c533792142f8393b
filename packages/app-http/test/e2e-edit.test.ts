/**
 * Rescheduling races the old due time, on the real stores and queues: posts due in 100-300 ms
 * are moved 3 s later at about their due time, so some edits land before it and some while a
 * worker takes the post. An edit that answered 200 must publish at the new time and only then;
 * one that answered 409 was taken by a worker first and publishes at the old time. Each post
 * publishes once. Production (PostgreSQL + BullMQ + a separate worker) and embedded (PGlite +
 * the in-process queue).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Mode, sleep, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

const modes: Mode[] = ['production', 'embedded'];

/** Posts raced per mode. */
const RACES = 24;
/** How far the edit moves the post. */
const MOVE_MS = 3_000;
/** How early a worker may start a post (its clock-skew tolerance). */
const EARLY_TOLERANCE_MS = 50;

interface PostJson {
  id: string;
  status: string;
  scheduled_at: string;
  post_targets: Array<{ status: string; attempts: number; published_at: string | null }>;
}

describe.each(modes)('rescheduling races the old due time, %s mode', (mode) => {
  const e2e = useSystem(mode);
  let accountId = '';

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const account = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'twitter',
      sandbox: true,
      display_name: 'edit race',
    });
    accountId = account.body.data.id;
  }, 60_000);

  it('a post moved as its old time passes publishes once: at the new time when the edit answered 200', async (context) => {
    const { api } = e2e.orSkip(context);
    const race = async (index: number) => {
      const dueIn = 100 + ((index * 37) % 200);
      const oldAt = new Date(Date.now() + dueIn);
      const created = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
        content: `race ${index}`,
        social_account_ids: [accountId],
        scheduled_at: oldAt.toISOString(),
      });
      expect(created.status).toBe(201);
      // Around the old time: from 40 ms before it to 20 ms after.
      await sleep(Math.max(0, oldAt.getTime() - Date.now() - 40 + ((index * 13) % 60)));
      const newAt = new Date(Date.now() + MOVE_MS);
      const edited = await api.call<{ data: PostJson; error?: { code: string } }>(
        'PATCH',
        `/posts/${created.body.data.id}`,
        { scheduled_at: newAt.toISOString() },
      );
      if (edited.status !== 200) expect(edited.body.error?.code).toBe('post_not_editable');
      return { id: created.body.data.id, oldAt, newAt, moved: edited.status === 200 };
    };
    // One after another: concurrent creates on a loaded machine could miss their own due time.
    const races: Array<Awaited<ReturnType<typeof race>>> = [];
    for (let index = 0; index < RACES; index++) races.push(await race(index));
    const moved = races.filter((r) => r.moved);
    // The timings spread the edits around the due time; at least some must land before it.
    expect(moved.length).toBeGreaterThan(0);

    for (const { id, oldAt, newAt, moved } of races) {
      const post = await waitFor(
        `post ${id} published`,
        async () => {
          const found = await api.call<{ data: PostJson }>('GET', `/posts/${id}`);
          return found.body.data.status === 'published' ? found.body.data : undefined;
        },
        20_000,
      );
      const [target] = post.post_targets;
      // Claimed and published once: a second run would have found it published.
      expect(post.post_targets).toHaveLength(1);
      expect(target?.attempts).toBe(1);
      const publishedAt = Date.parse(target?.published_at ?? '');
      if (moved) {
        expect(post.scheduled_at).toBe(newAt.toISOString());
        expect(publishedAt, `post ${id} published before its new time`).toBeGreaterThanOrEqual(
          newAt.getTime() - EARLY_TOLERANCE_MS,
        );
      } else {
        expect(post.scheduled_at).toBe(oldAt.toISOString());
        expect(publishedAt).toBeLessThan(newAt.getTime() - EARLY_TOLERANCE_MS);
      }
    }
    // Wait past the last new time: nothing publishes again, nothing changes.
    await sleep(500);
    const all = await api.call<{ data: PostJson[] }>('GET', '/posts');
    const ours = all.body.data.filter((post) => races.some((r) => r.id === post.id));
    expect(ours.every((post) => post.post_targets.every((t) => t.attempts === 1))).toBe(true);
  }, 60_000);
});
