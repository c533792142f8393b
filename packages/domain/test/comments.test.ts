// Comments under published posts: read on their decaying schedule through the scripted client,
// stored and announced (`comment.received`) once each, listed per post and in the inbox, only
// to the post's account (404 for anyone else); replies posted once per Idempotency-Key, even
// across a crash between the intent and the answer.
import { describe, expect, it } from 'vitest';
import {
  type CommentReply,
  createPost,
  createWebhook,
  deleteComment,
  hideComment,
  listInbox,
  listPostComments,
  markCommentsRead,
  processPublishJob,
  REPLY_IN_FLIGHT_MS,
  readDueComments,
  refreshPostComments,
  replyToComment,
} from '../src/index.ts';
import {
  createTestDeps,
  published,
  seedConnection,
  seedUser,
  type TestDeps,
} from '../src/testing/index.ts';
import { comment, type ScriptedComments, scriptedComments } from './comments-fakes.ts';
import { errorOf, jobCtx, unwrap } from './support.ts';

const MINUTE = 60_000;
const signal = () => new AbortController().signal;

async function publishedPost(deps: TestDeps, platform: 'twitter' | 'tiktok' = 'twitter') {
  const alice = await seedUser(deps);
  const connection = await seedConnection(deps, alice.user.id, platform);
  const post = unwrap(
    await createPost(
      deps,
      alice.ctx,
      {
        content: 'hello',
        social_account_ids: [connection.id],
        media_urls: ['https://cdn.example.com/a.mp4'],
      },
      'now',
    ),
  );
  deps.platforms.publisher(platform).script(published(`${platform}-1`));
  await processPublishJob(deps, post.id, jobCtx());
  return { alice, connection, post };
}

async function setUp(): Promise<{
  deps: TestDeps;
  fake: ScriptedComments;
  setup: Awaited<ReturnType<typeof publishedPost>>;
}> {
  const deps = createTestDeps();
  const fake = scriptedComments();
  deps.platforms.setCommentsClient('twitter', fake.client);
  return { deps, fake, setup: await publishedPost(deps) };
}

/** Moves past the first scheduled read and runs a pass. */
async function readSoon(deps: TestDeps) {
  deps.clock.advance(20 * MINUTE);
  return readDueComments(deps, signal());
}

describe('reading comments', () => {
  it('follows a published target from its publication: first read about 15 minutes later', async () => {
    const { deps, setup } = await setUp();
    const [track] = await deps.repos.comments.tracksOfPost(setup.post.id);
    const delay = (track?.dueAt?.getTime() ?? 0) - (track?.publishedAt.getTime() ?? 0);
    expect(delay).toBeGreaterThanOrEqual(13.5 * MINUTE);
    expect(delay).toBeLessThanOrEqual(16.5 * MINUTE);
    expect((await readDueComments(deps, signal())).claimed).toBe(0);
  });

  it('stores new comments once and sends comment.received once per comment of others', async () => {
    const { deps, fake, setup } = await setUp();
    const url = 'https://hooks.example.com/in';
    unwrap(await createWebhook(deps, setup.alice.ctx, { url, events: ['comment.received'] }));
    fake.comments.push(comment('great post'), comment('mine', { mine: true }));
    const report = await readSoon(deps);
    expect(report).toMatchObject({ claimed: 1, fresh: 1, stored: 2 });
    const events = [...deps.store.tables.deliveries.values()].filter(
      (d) => d.event === 'comment.received',
    );
    expect(events).toHaveLength(1);
    const payload = JSON.parse(events[0]?.payload ?? '{}');
    expect(payload.data).toEqual({
      target_id: setup.post.targets[0]?.id,
      platform: 'twitter',
      social_account_id: setup.connection.id,
      comment_id: fake.comments[0]?.platformCommentId,
      author: 'fan@example.social',
      text: 'great post',
      created_at: fake.comments[0]?.createdAt.toISOString(),
    });
    // The next read finds the same comments: nothing new, nothing sent.
    deps.clock.advance(2 * 60 * MINUTE);
    expect(await readDueComments(deps, signal())).toMatchObject({ claimed: 1, stored: 0 });
    expect(
      [...deps.store.tables.deliveries.values()].filter((d) => d.event === 'comment.received'),
    ).toHaveLength(1);
    const [track] = await deps.repos.comments.tracksOfPost(setup.post.id);
    expect(track?.step).toBe(2);
  });

  it('a refused read is stale, a deleted post gone, a platform without comments unsupported', async () => {
    const { deps, fake, setup } = await setUp();
    fake.nextList = { kind: 'failed', code: 'http_500', message: 'oops', retryable: true };
    await readSoon(deps);
    const state = async () => (await deps.repos.comments.tracksOfPost(setup.post.id))[0];
    expect(await state()).toMatchObject({ state: 'stale', error: 'http_500: oops' });
    fake.nextList = { kind: 'gone', message: 'the post was deleted' };
    deps.clock.advance(2 * 60 * MINUTE);
    await readDueComments(deps, signal());
    expect(await state()).toMatchObject({ state: 'gone', dueAt: null });

    const tiktok = await publishedPost(deps, 'tiktok');
    await readSoon(deps);
    const list = unwrap(await listPostComments(deps, tiktok.alice.actor, tiktok.post.id, {}));
    expect(list.items).toEqual([]);
    expect(list.targets).toEqual([
      expect.objectContaining({ platform: 'tiktok', state: 'unsupported', nextRefreshAt: null }),
    ]);
  });
});

describe('sandbox comments', () => {
  it('a sandbox target gets made-up comments with age, answered without any platform', async () => {
    const deps = createTestDeps();
    const alice = await seedUser(deps);
    const connection = await seedConnection(deps, alice.user.id, 'tiktok', { sandbox: true });
    const post = unwrap(
      await createPost(
        deps,
        alice.ctx,
        {
          content: 'sandbox',
          social_account_ids: [connection.id],
          media_urls: ['https://cdn.example.com/a.mp4'],
        },
        'now',
      ),
    );
    await processPublishJob(deps, post.id, jobCtx());
    await readSoon(deps);
    const first = unwrap(await listPostComments(deps, alice.actor, post.id, {}));
    expect(first.items.map((c) => c.text)).toEqual(['Sandbox comment 1']);
    expect(first.items[0]).toMatchObject({ sandbox: true, can: { reply: true, hide: true } });
    deps.clock.advance(2 * 60 * MINUTE);
    await readDueComments(deps, signal());
    const later = unwrap(await listPostComments(deps, alice.actor, post.id, {}));
    expect(later.items.map((c) => c.text)).toEqual(['Sandbox comment 2', 'Sandbox comment 1']);
    const parent = later.items[1];
    const reply = unwrap(await replyToComment(deps, alice.actor, parent?.id ?? '', 'hi', 'k'));
    expect(reply).toMatchObject({ mine: true, sandbox: true, parentId: parent?.id });
    expect(unwrap(await hideComment(deps, alice.actor, parent?.id ?? '', true)).hidden).toBe(true);
    unwrap(await deleteComment(deps, alice.actor, reply.id));
    expect(await deps.repos.comments.findById(reply.id)).toBeNull();
  });
});

describe('comments through the API', () => {
  it('lists a post comments and the inbox newest first; others get 404; marks read', async () => {
    const { deps, fake, setup } = await setUp();
    fake.comments.push(comment('first'), comment('second'));
    await readSoon(deps);
    const { actor } = setup.alice;
    const list = unwrap(await listPostComments(deps, actor, setup.post.id, { limit: 1 }));
    expect(list.items.map((c) => c.text)).toEqual(['second']);
    expect(list.items[0]?.can).toEqual({ reply: true, hide: false, delete: false });
    const next = unwrap(
      await listPostComments(deps, actor, setup.post.id, { cursor: list.nextCursor ?? '' }),
    );
    expect(next.items.map((c) => c.text)).toEqual(['first']);

    const bob = await seedUser(deps);
    expect(errorOf(await listPostComments(deps, bob.actor, setup.post.id, {})).code).toBe(
      'not_found',
    );
    const id = list.items[0]?.id ?? '';
    expect(errorOf(await replyToComment(deps, bob.actor, id, 'hi')).code).toBe('not_found');
    expect(unwrap(await markCommentsRead(deps, bob.actor, [id]))).toBe(0);
    expect(unwrap(await listInbox(deps, bob.actor, {})).items).toEqual([]);

    const inbox = unwrap(await listInbox(deps, actor, { unreadOnly: true }));
    expect(inbox.items.map((c) => c.text)).toEqual(['second', 'first']);
    expect(unwrap(await markCommentsRead(deps, actor, [id]))).toBe(1);
    const unread = unwrap(await listInbox(deps, actor, { unreadOnly: true }));
    expect(unread.items.map((c) => c.text)).toEqual(['first']);
  });

  it('a refresh makes the targets due now, debounced', async () => {
    const { deps, setup } = await setUp();
    const [state] = unwrap(await refreshPostComments(deps, setup.alice.actor, setup.post.id));
    expect(state?.nextRefreshAt).toEqual(deps.clock.now());
    expect((await readDueComments(deps, signal())).claimed).toBe(1);
  });
});

describe('replies', () => {
  async function withComment() {
    const context = await setUp();
    context.fake.comments.push(comment('a question'));
    await readSoon(context.deps);
    const [first] = unwrap(
      await listPostComments(context.deps, context.setup.alice.actor, context.setup.post.id, {}),
    ).items;
    if (!first) throw new Error('no comment');
    return { ...context, parent: first, actor: context.setup.alice.actor };
  }

  it('posts a reply once per Idempotency-Key and answers it again for the same key', async () => {
    const { deps, fake, parent, actor } = await withComment();
    const reply = unwrap(await replyToComment(deps, actor, parent.id, 'thanks!', 'key-1'));
    expect(reply).toMatchObject({ text: 'thanks!', mine: true, parentId: parent.id });
    const again = unwrap(await replyToComment(deps, actor, parent.id, 'thanks!', 'key-1'));
    expect(again.id).toBe(reply.id);
    expect(fake.replies).toHaveLength(1);
    expect(errorOf(await replyToComment(deps, actor, parent.id, 'other', 'key-1')).code).toBe(
      'conflict',
    );
    // A read finding our reply stores nothing new and announces nothing.
    deps.clock.advance(2 * 60 * MINUTE);
    expect((await readDueComments(deps, signal())).stored).toBe(0);
  });

  it('refuses an empty or too long reply naming the limit, and a gone comment clearly', async () => {
    const { deps, fake, parent, actor } = await withComment();
    const long = errorOf(await replyToComment(deps, actor, parent.id, 'x'.repeat(21)));
    expect(long.code).toBe('validation_failed');
    expect(long.message).toMatch(/1 to 20 characters \(the twitter limit/);
    expect(errorOf(await replyToComment(deps, actor, parent.id, '  ')).code).toBe(
      'validation_failed',
    );
    fake.deleted.add(parent.platformCommentId);
    expect(errorOf(await replyToComment(deps, actor, parent.id, 'hello?')).code).toBe(
      'comment_gone',
    );
    expect(fake.replies).toHaveLength(0);
  });

  it('after a crash mid-request, finds the reply on the platform instead of posting again', async () => {
    const { deps, fake, parent, actor } = await withComment();
    const intent = leftSending(deps, parent.id, parent.accountId, 'key-crash', 'on my way');
    await deps.repos.comments.createReply(intent);
    // The dead request did reach the platform.
    fake.comments.push(
      comment('on my way', { mine: true, parentPlatformId: parent.platformCommentId }),
    );
    expect(
      errorOf(await replyToComment(deps, actor, parent.id, 'on my way', 'key-crash')).code,
    ).toBe('conflict');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    const found = unwrap(await replyToComment(deps, actor, parent.id, 'on my way', 'key-crash'));
    expect(found).toMatchObject({ text: 'on my way', mine: true });
    expect(fake.replies).toHaveLength(0);
  });

  it('after a crash whose reply is not found, ends outcome_unknown and never posts', async () => {
    const { deps, fake, parent, actor } = await withComment();
    await deps.repos.comments.createReply(
      leftSending(deps, parent.id, parent.accountId, 'key-lost', 'maybe sent'),
    );
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    const lost = errorOf(await replyToComment(deps, actor, parent.id, 'maybe sent', 'key-lost'));
    expect(lost.message).toMatch(/outcome is unknown/);
    const again = errorOf(await replyToComment(deps, actor, parent.id, 'maybe sent', 'key-lost'));
    expect(again.message).toMatch(/outcome is unknown/);
    expect(fake.replies).toHaveLength(0);
  });

  it('a platform that does not answer leaves the reply to be looked up, not resent', async () => {
    const { deps, fake, parent, actor } = await withComment();
    fake.nextReply = new Error('socket hang up');
    const failed = errorOf(await replyToComment(deps, actor, parent.id, 'hello', 'key-t'));
    expect(failed.code).toBe('platform_unavailable');
    expect((await deps.repos.comments.findReply(parent.accountId, 'key-t'))?.state).toBe('sending');
  });

  it('hide where the platform cannot is unsupported; delete removes it there and here', async () => {
    const { deps, fake, parent, actor } = await withComment();
    const hidden = errorOf(await hideComment(deps, actor, parent.id, true));
    expect(hidden).toEqual({
      code: 'unsupported',
      message: 'the scripted platform cannot hide that comment',
    });
    expect(errorOf(await deleteComment(deps, actor, parent.id))).toEqual({
      code: 'unsupported',
      message: 'the scripted platform cannot delete that comment',
    });
    const mine = unwrap(await replyToComment(deps, actor, parent.id, 'oops'));
    unwrap(await deleteComment(deps, actor, mine.id));
    expect(fake.deleted.has(mine.platformCommentId)).toBe(true);
    expect(await deps.repos.comments.findById(mine.id)).toBeNull();
  });
});

function leftSending(
  deps: TestDeps,
  commentId: string,
  accountId: string,
  key: string,
  text: string,
): CommentReply {
  return {
    id: deps.ids.newId(),
    accountId,
    commentId,
    idempotencyKey: key,
    text,
    state: 'sending',
    intentAt: deps.clock.now(),
    platformCommentId: null,
    replyCommentId: null,
    error: null,
  };
}
