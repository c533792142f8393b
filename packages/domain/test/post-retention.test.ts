// POSTS_RETENTION_DAYS: off by default; when set, the sweep deletes finished posts older than
// that, a bounded batch per call, and nothing newer.
import { describe, expect, it } from 'vitest';
import { POST_RETENTION_BATCH, sweepFinishedPosts } from '../src/index.ts';
import { makePost, seedUser } from '../src/testing/contracts/storage-fixtures.ts';
import { createTestDeps } from '../src/testing/index.ts';

const DAY = 86_400_000;
const NOW = new Date('2027-06-01T00:00:00Z');

async function seedFinished(deps: ReturnType<typeof createTestDeps>, daysAgo: number) {
  const user = await seedUser(deps.repos);
  const at = new Date(NOW.getTime() - daysAgo * DAY);
  const post = makePost(user.id, user.id, {
    post: { status: 'published', createdAt: at, updatedAt: at },
    target: { status: 'published', updatedAt: at, publishedAt: at },
  });
  await deps.repos.posts.insert(post);
  return post.id;
}

describe('sweepFinishedPosts', () => {
  it('deletes nothing when POSTS_RETENTION_DAYS is unset', async () => {
    const deps = createTestDeps({ now: NOW });
    const old = await seedFinished(deps, 5_000);
    expect(await sweepFinishedPosts(deps)).toBe(0);
    expect(await deps.repos.posts.findById(old)).not.toBeNull();
  });

  it('deletes finished posts older than the retention, a bounded batch per call', async () => {
    const deps = createTestDeps({ now: NOW, settings: { postsRetentionMs: 30 * DAY } });
    const old = [await seedFinished(deps, 40), await seedFinished(deps, 31)];
    const recent = await seedFinished(deps, 29);
    expect(await sweepFinishedPosts(deps, 1)).toBe(1);
    expect(await deps.repos.posts.findById(old[0] ?? '')).toBeNull();
    expect(await deps.repos.posts.findById(old[1] ?? '')).not.toBeNull();
    expect(await sweepFinishedPosts(deps)).toBe(1);
    expect(await deps.repos.posts.findById(recent)).not.toBeNull();
    expect(POST_RETENTION_BATCH).toBeGreaterThan(1);
  });
});
