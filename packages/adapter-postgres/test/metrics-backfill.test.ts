// 0011_metrics's backfill: targets published before the migration get a `pending` track with
// no due time (read when asked); failed and unpublished ones get none.
import { seedPost } from '@social-publisher/domain/contracts/storage-fixtures';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migration0011 } from '../src/migrations/0011_metrics.ts';
import { postgresStorageTesting } from '../src/testing.ts';
import { type Backend, openPgliteBackend } from './backends.ts';

describe('0011_metrics backfill', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  }, 60_000);
  afterAll(async () => {
    await backend?.close();
  });

  it('follows the published targets, pending and never due', async () => {
    const { repos, db } = backend.handle;
    const testing = postgresStorageTesting(db);
    const post = await seedPost(repos, { platforms: ['tiktok', 'youtube', 'x'] });
    const [published, failed] = post.targets;
    const at = new Date('2030-05-01T10:00:00Z');
    for (const target of [published, failed]) {
      if (!target) throw new Error('no target');
      await testing.claimTarget(target.id, new Date('2030-05-01T11:00:00Z'), at, false);
    }
    await repos.posts.completeTarget(published?.id ?? '', {
      status: 'published',
      platformPostId: 'v-1',
      platformUrl: null,
      at,
    });
    await repos.posts.completeTarget(failed?.id ?? '', {
      status: 'failed',
      errorCode: 'x',
      errorMessage: 'no',
      retryable: false,
      at,
    });
    expect(await repos.metrics.listByPost(post.id)).toEqual([]);

    const migrating = db as unknown as Kysely<unknown>;
    await migration0011.down(migrating);
    await migration0011.up(migrating);

    expect(await repos.metrics.listByPost(post.id)).toEqual([
      {
        targetId: published?.id,
        postId: post.id,
        accountId: post.accountId,
        socialAccountId: published?.socialAccountId,
        platform: 'tiktok',
        platformPostId: 'v-1',
        publishedAt: at,
        sandbox: false,
        state: 'pending',
        step: 0,
        dueAt: null,
        takenAt: null,
        metrics: null,
        error: null,
      },
    ]);
  });
});
