import { describe, expect, it } from 'vitest';
import {
  addMember,
  type CreatePostInput,
  cancelPost,
  createPost,
  getPost,
  listPosts,
  listPostsPage,
  removeMember,
} from '../src/index.ts';
import {
  createTestDeps,
  ScriptedPlatformRegistry,
  seedConnection,
  seedUser,
  seedWorkspace,
} from '../src/testing/index.ts';
import { errorOf, testRules, UNKNOWN_ID, unwrap } from './support.ts';

const VIDEO = 'https://cdn.example.com/clip.mp4';

async function setup() {
  const deps = createTestDeps({ platforms: new ScriptedPlatformRegistry(testRules()) });
  const alice = await seedUser(deps, 'alice@example.com');
  const tiktok = await seedConnection(deps, alice.user.id, 'tiktok');
  const youtube = await seedConnection(deps, alice.user.id, 'youtube');
  const twitter = await seedConnection(deps, alice.user.id, 'twitter');
  return { deps, alice, tiktok, youtube, twitter };
}

describe('createPost', () => {
  it('creates a queued post with one pending target per connection and enqueues it now', async () => {
    const { deps, alice, tiktok, youtube } = await setup();
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'hi',
          social_account_ids: [tiktok.id, youtube.id, tiktok.id],
          media_urls: [VIDEO],
        },
        'now',
      ),
    );
    expect(post).toMatchObject({
      accountId: alice.user.id,
      createdBy: alice.user.id,
      content: 'hi',
      mediaUrls: [VIDEO],
      platformOptions: {},
      scheduledAt: null,
      status: 'queued',
    });
    expect(post.targets.map((t) => [t.platform, t.socialAccountId, t.status, t.attempts])).toEqual([
      ['tiktok', tiktok.id, 'pending', 0],
      ['youtube', youtube.id, 'pending', 0],
    ]);
    expect(await deps.repos.posts.findById(post.id)).toEqual(post);
    expect(deps.queue.enqueued).toEqual([{ kind: 'publish', id: post.id, runAt: null }]);
  });

  it('reports a problem once when the shared rules and the publisher both find it', async () => {
    const { deps, alice, youtube } = await setup();
    deps.platforms
      .publisher('youtube')
      .validateWith(() => [
        { field: 'media_urls[0]', message: 'youtube does not accept photos; give a video URL' },
      ]);
    const failure = errorOf(
      await createPost(
        deps,
        alice.ctx,
        { social_account_ids: [youtube.id], media_urls: ['https://cdn.example.com/a.jpg'] },
        'now',
      ),
    );
    const fields = failure.code === 'validation_failed' ? failure.details : [];
    const keys = fields.map((problem) => `${problem.field}:${problem.message}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBeGreaterThan(0);
  });

  it('schedules a post as a delayed job', async () => {
    const { deps, alice } = await setup();
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { platforms: ['twitter'], scheduled_at: '2026-01-02T10:00:00+02:00' },
        'scheduled',
      ),
    );
    expect(post.status).toBe('scheduled');
    expect(post.scheduledAt).toEqual(new Date('2026-01-02T08:00:00Z'));
    expect(post.content).toBe('');
    expect(deps.queue.enqueued).toEqual([
      { kind: 'publish', id: post.id, runAt: post.scheduledAt },
    ]);
  });

  it('platforms resolve to the newest active connection, deduplicated with ids', async () => {
    const { deps, alice, tiktok } = await setup();
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { social_account_ids: [tiktok.id], platforms: ['tiktok', 'tiktok'], media_urls: [VIDEO] },
        'now',
      ),
    );
    expect(post.targets.map((t) => t.socialAccountId)).toEqual([tiktok.id]);
  });

  it('rejects connections of other accounts exactly like unknown ones, and inactive ones', async () => {
    const { deps, alice } = await setup();
    const bob = await seedUser(deps);
    const bobs = await seedConnection(deps, bob.user.id, 'twitter');
    const expired = await seedConnection(deps, alice.user.id, 'twitter', { status: 'expired' });
    const error = errorOf(
      await createPost(
        deps,
        alice.ctx,
        { social_account_ids: [bobs.id, UNKNOWN_ID, expired.id] },
        'now',
      ),
    );
    expect(error).toMatchObject({ code: 'validation_failed' });
    if (error.code !== 'validation_failed') throw new Error('unreachable');
    expect(error.details).toEqual(
      [0, 1, 2].map((i) => ({
        field: `social_account_ids[${i}]`,
        message: 'is not an active social account of this account',
      })),
    );
    expect(deps.queue.enqueued).toEqual([]);
  });

  it('names a platform without an active connection', async () => {
    const { deps, alice } = await setup();
    const error = errorOf(await createPost(deps, alice.ctx, { platforms: ['linkedin'] }, 'now'));
    expect(error).toMatchObject({
      details: [
        { field: 'platforms[0]', message: 'this account has no active linkedin connection' },
      ],
    });
  });

  it('applies platform media rules to the resolved connections', async () => {
    const { deps, alice, tiktok, youtube } = await setup();
    const error = errorOf(
      await createPost(
        deps,
        alice.ctx,
        {
          social_account_ids: [tiktok.id, youtube.id],
          media_urls: ['https://cdn.example.com/p.png'],
        },
        'now',
      ),
    );
    expect(error).toMatchObject({
      details: [
        { field: 'media_urls[0]', message: 'youtube does not accept photos; give a video URL' },
      ],
    });
  });

  it('adds each platform publisher validation, once per platform', async () => {
    const { deps, alice, tiktok } = await setup();
    const second = await seedConnection(deps, alice.user.id, 'tiktok');
    let calls = 0;
    deps.platforms.publisher('tiktok').validateWith((draft) => {
      calls++;
      return draft.content.length > 3
        ? [{ field: 'content', message: 'tiktok title too long' }]
        : [];
    });
    const input: CreatePostInput = {
      content: 'long text',
      social_account_ids: [tiktok.id, second.id],
      media_urls: [VIDEO],
    };
    expect(errorOf(await createPost(deps, alice.ctx, input, 'now'))).toMatchObject({
      details: [{ field: 'content', message: 'tiktok title too long' }],
    });
    expect(calls).toBe(1);
  });

  it('skips publisher validation when the draft is ill-typed, still reporting shared problems', async () => {
    const { deps, alice, tiktok } = await setup();
    let called = false;
    deps.platforms.publisher('tiktok').validateWith(() => {
      called = true;
      return [];
    });
    const error = errorOf(
      await createPost(
        deps,
        alice.ctx,
        { content: 5, social_account_ids: [tiktok.id], media_urls: [VIDEO] },
        'now',
      ),
    );
    expect(error).toMatchObject({ details: [{ field: 'content' }] });
    expect(called).toBe(false);
  });

  it('rejects a platform this deployment has no publisher for', async () => {
    const { deps, alice } = await setup();
    await seedConnection(deps, alice.user.id, 'facebook');
    deps.platforms.remove('facebook');
    expect(
      errorOf(await createPost(deps, alice.ctx, { platforms: ['facebook'] }, 'now')),
    ).toMatchObject({
      details: [{ field: 'platforms[0]', message: 'publishing to facebook is not available' }],
    });
  });

  it('reports every problem at once', async () => {
    const { deps, alice } = await setup();
    const error = errorOf(
      await createPost(
        deps,
        alice.ctx,
        { content: 'x'.repeat(5001), platforms: ['instagram', 'nope'], scheduled_at: 'soon' },
        'scheduled',
      ),
    );
    if (error.code !== 'validation_failed') throw new Error(error.code);
    expect(error.details.map((d) => d.field)).toEqual([
      'content',
      'platforms[1]',
      'scheduled_at',
      'platforms[0]',
    ]);
    expect(error.message).toBe('4 fields are invalid');
  });

  it('scheduled_at is required when scheduling, refused when publishing now, and must be future', async () => {
    const { deps, alice } = await setup();
    const fieldOf = async (input: CreatePostInput, mode: 'now' | 'scheduled') => {
      const error = errorOf(
        await createPost(deps, alice.ctx, { platforms: ['twitter'], ...input }, mode),
      );
      return error.code === 'validation_failed' ? error.details.map((d) => d.message) : [];
    };
    expect(await fieldOf({}, 'scheduled')).toEqual(['is required']);
    expect(await fieldOf({ scheduled_at: '2030-01-01T00:00:00Z' }, 'now')).toEqual([
      'is not allowed when publishing now; use POST /posts/schedule',
    ]);
    expect(await fieldOf({ scheduled_at: '2025-12-31T23:59:59Z' }, 'scheduled')).toEqual([
      'must be in the future',
    ]);
  });

  it('still succeeds when the enqueue fails (the reconciler catches up)', async () => {
    const { deps, alice } = await setup();
    deps.queue.failEnqueues = 1;
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    expect(await deps.repos.posts.findById(post.id)).not.toBeNull();
    expect(deps.logger.at('warn')[0]?.msg).toMatch(/enqueue/);
  });

  it('nothing is stored when the insert fails', async () => {
    const { deps, alice } = await setup();
    deps.store.failNext('posts.insert', new Error('db down'));
    await expect(createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now')).rejects.toThrow(
      'db down',
    );
    expect(await listPosts(deps, alice.actor)).toEqual([]);
    expect(deps.queue.enqueued).toEqual([]);
  });
});

describe('listPosts and getPost', () => {
  it("lists the caller's posts newest first", async () => {
    const { deps, alice } = await setup();
    const first = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    deps.clock.advance(1000);
    const second = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    expect((await listPosts(deps, alice.actor)).map((p) => p.id)).toEqual([second.id, first.id]);
  });

  it('a team key sees only its team; account filter applies', async () => {
    const { deps, alice } = await setup();
    const team = await seedWorkspace(deps, alice);
    await seedConnection(deps, team.account.id, 'twitter');
    const personal = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    const inTeam = unwrap(await createPost(deps, team.ctx, { platforms: ['twitter'] }, 'now'));
    expect((await listPosts(deps, team.teamKeyActor)).map((p) => p.id)).toEqual([inTeam.id]);
    expect(await listPosts(deps, team.teamKeyActor, alice.user.id)).toEqual([]);
    expect((await listPosts(deps, alice.actor, alice.user.id)).map((p) => p.id)).toEqual([
      personal.id,
    ]);
  });

  it('a member removed from a team no longer lists its posts, those they created included', async () => {
    const { deps, alice } = await setup();
    const bob = await seedUser(deps);
    const team = await seedWorkspace(deps, alice);
    await seedConnection(deps, team.account.id, 'twitter');
    await seedConnection(deps, bob.user.id, 'twitter');
    unwrap(
      await addMember(deps, alice.actor, team.account.id, { userId: bob.user.id, role: 'member' }),
    );
    const bobInTeam = { ...bob.ctx, accountId: team.account.id, role: 'member' as const };
    const inTeam = unwrap(await createPost(deps, bobInTeam, { platforms: ['twitter'] }, 'now'));
    deps.clock.advance(1000);
    const personal = unwrap(await createPost(deps, bob.ctx, { platforms: ['twitter'] }, 'now'));
    const listed = async () => (await listPosts(deps, bob.actor)).map((p) => p.id);
    const paged = async () =>
      unwrap(await listPostsPage(deps, bob.actor, { limit: 10 })).posts.map((p) => p.id);
    expect(await listed()).toEqual([personal.id, inTeam.id]);
    expect(await paged()).toEqual([personal.id, inTeam.id]);

    unwrap(await removeMember(deps, alice.actor, team.account.id, bob.user.id));
    expect(await listed()).toEqual([personal.id]);
    expect(await paged()).toEqual([personal.id]);
    expect(await listPosts(deps, bob.actor, team.account.id)).toEqual([]);
    expect(unwrap(await listPostsPage(deps, bob.actor, { limit: 10 }, team.account.id))).toEqual({
      posts: [],
      nextCursor: null,
    });
  });

  it("another account's post is not_found", async () => {
    const { deps, alice } = await setup();
    const bob = await seedUser(deps);
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    expect(unwrap(await getPost(deps, alice.actor, post.id)).id).toBe(post.id);
    expect(errorOf(await getPost(deps, bob.actor, post.id)).code).toBe('not_found');
    expect(errorOf(await getPost(deps, bob.actor, UNKNOWN_ID)).code).toBe('not_found');
    expect(errorOf(await getPost(deps, bob.actor, 'x')).code).toBe('not_found');
  });
});

describe('cancelPost', () => {
  it('cancels a scheduled post, its pending targets and its job', async () => {
    const { deps, alice } = await setup();
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        { platforms: ['twitter'], scheduled_at: '2026-02-01T00:00:00Z' },
        'scheduled',
      ),
    );
    const cancelled = unwrap(await cancelPost(deps, alice.actor, post.id));
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.targets.map((t) => t.status)).toEqual(['cancelled']);
    expect(deps.queue.cancelled).toEqual([post.id]);
    expect(deps.queue.has('publish', post.id)).toBe(false);
    // idempotent
    expect(unwrap(await cancelPost(deps, alice.actor, post.id)).status).toBe('cancelled');
  });

  it('after publishing began: conflict', async () => {
    const { deps, alice } = await setup();
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    await deps.repos.posts.transitionStatus(post.id, ['queued'], 'publishing', deps.clock.now());
    expect(errorOf(await cancelPost(deps, alice.actor, post.id))).toEqual({
      code: 'conflict',
      message: 'the post cannot be cancelled: it is already publishing',
    });
    await deps.repos.posts.transitionStatus(post.id, ['publishing'], 'published', deps.clock.now());
    expect(errorOf(await cancelPost(deps, alice.actor, post.id)).code).toBe('conflict');
  });

  it('losing the race to a worker is a conflict, to another cancel is ok', async () => {
    const { deps, alice } = await setup();
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    let racer: 'publishing' | 'cancelled' = 'publishing';
    const transition = deps.repos.posts.transitionStatus;
    deps.repos.posts.transitionStatus = async (id, from, to, at) => {
      // Someone else moves the post between our read and our conditional update.
      const row = deps.store.tables.posts.get(id);
      if (row) row.status = racer;
      return transition(id, from, to, at);
    };
    expect(errorOf(await cancelPost(deps, alice.actor, post.id)).code).toBe('conflict');
    const other = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    racer = 'cancelled';
    expect(unwrap(await cancelPost(deps, alice.actor, other.id)).status).toBe('cancelled');
  });

  it('a failing job removal is only logged', async () => {
    const { deps, alice } = await setup();
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    deps.queue.cancelPublish = async () => {
      throw new Error('redis down');
    };
    expect(unwrap(await cancelPost(deps, alice.actor, post.id)).status).toBe('cancelled');
    expect(deps.logger.at('warn')).toHaveLength(1);
  });

  it("another account's post is not_found", async () => {
    const { deps, alice } = await setup();
    const bob = await seedUser(deps);
    const post = unwrap(await createPost(deps, alice.ctx, { platforms: ['twitter'] }, 'now'));
    expect(errorOf(await cancelPost(deps, bob.actor, post.id)).code).toBe('not_found');
  });
});
