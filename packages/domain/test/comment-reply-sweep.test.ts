// The worker's sweep of replies whose request died and whose client never asked again: each
// `sending` reply older than the in-flight time is looked for on the platform (found: `sent`,
// else `outcome_unknown`), never sent; a young one is left to its request; one look-up at a
// time; the connection's read budget is spent; the client's later retry hears the same answer.
import { describe, expect, it } from 'vitest';
import {
  type CommentReply,
  type CommentView,
  createMemoryPacer,
  createPost,
  listPostComments,
  processPublishJob,
  REPLY_IN_FLIGHT_MS,
  REPLY_SWEEP_PASS_SIZE,
  readDueComments,
  readPaceKey,
  replyToComment,
  settleAbandonedReplies,
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
const HOUR = 60 * MINUTE;

/** A published X post with one comment read, and the texts the platform was asked to find. */
async function commentRead() {
  const deps = createTestDeps();
  const fake = scriptedComments();
  const lookups: string[] = [];
  const findReply = fake.client.findReply;
  fake.client.findReply = (request) => {
    lookups.push(request.text);
    return findReply(request);
  };
  deps.platforms.setCommentsClient('twitter', fake.client);
  const alice = await seedUser(deps);
  const connection = await seedConnection(deps, alice.user.id, 'twitter');
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
  deps.platforms.publisher('twitter').script(published('twitter-1'));
  await processPublishJob(deps, post.id, jobCtx());
  fake.comments.push(comment('a question'));
  deps.clock.advance(20 * MINUTE);
  await readDueComments(deps, new AbortController().signal);
  const [parent] = unwrap(await listPostComments(deps, alice.actor, post.id, {})).items;
  if (!parent) throw new Error('no comment read');
  return { deps, fake, lookups, parent, connection, actor: alice.actor };
}

/** What a request that died after recording its intent leaves: a `sending` reply. */
async function leftSending(deps: TestDeps, parent: CommentView, key: string, text: string) {
  const reply: CommentReply = {
    id: deps.ids.newId(),
    accountId: parent.accountId,
    commentId: parent.id,
    idempotencyKey: key,
    text,
    state: 'sending',
    intentAt: deps.clock.now(),
    platformCommentId: null,
    replyCommentId: null,
    error: null,
  };
  await deps.repos.comments.createReply(reply);
  return reply;
}

/** The dead request did reach the platform: the reply is there. */
function postedMeanwhile(fake: ScriptedComments, parent: CommentView, text: string) {
  fake.comments.push(comment(text, { mine: true, parentPlatformId: parent.platformCommentId }));
}

const stateOf = async (deps: TestDeps, parent: CommentView, key: string) =>
  (await deps.repos.comments.findReply(parent.accountId, key))?.state;

describe('settleAbandonedReplies', () => {
  it('a reply found on the platform is sent and stored; the later retry answers it', async () => {
    const { deps, fake, parent, actor } = await commentRead();
    await leftSending(deps, parent, 'key-found', 'on my way');
    postedMeanwhile(fake, parent, 'on my way');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    expect(await settleAbandonedReplies(deps)).toEqual({
      claimed: 1,
      sent: 1,
      outcomeUnknown: 0,
      postponed: 0,
    });
    const stored = await deps.repos.comments.findReply(parent.accountId, 'key-found');
    expect(stored?.state).toBe('sent');
    const retry = unwrap(await replyToComment(deps, actor, parent.id, 'on my way', 'key-found'));
    expect(retry).toMatchObject({ id: stored?.replyCommentId, mine: true, parentId: parent.id });
    expect(fake.replies).toHaveLength(0);
    // Settled: the next pass has nothing to do.
    expect((await settleAbandonedReplies(deps)).claimed).toBe(0);
  });

  it('a reply not found ends outcome_unknown; the later retry says so and sends nothing', async () => {
    const { deps, fake, parent, actor } = await commentRead();
    await leftSending(deps, parent, 'key-lost', 'maybe sent');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    expect(await settleAbandonedReplies(deps)).toMatchObject({ claimed: 1, outcomeUnknown: 1 });
    expect(await stateOf(deps, parent, 'key-lost')).toBe('outcome_unknown');
    const retry = errorOf(await replyToComment(deps, actor, parent.id, 'maybe sent', 'key-lost'));
    expect(retry).toMatchObject({ code: 'conflict' });
    expect(retry.message).toMatch(/outcome is unknown/);
    expect(fake.replies).toHaveLength(0);
  });

  it('a look-up the platform does not answer ends outcome_unknown, looked up once', async () => {
    const { deps, fake, lookups, parent } = await commentRead();
    fake.client.findReply = async (request) => {
      lookups.push(request.text);
      throw new Error('socket hang up');
    };
    await leftSending(deps, parent, 'key-silent', 'hello?');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    expect(await settleAbandonedReplies(deps)).toMatchObject({ outcomeUnknown: 1 });
    expect(await stateOf(deps, parent, 'key-silent')).toBe('outcome_unknown');
    deps.clock.advance(REPLY_IN_FLIGHT_MS * 2);
    await settleAbandonedReplies(deps);
    expect(lookups).toEqual(['hello?']);
    expect(fake.replies).toHaveLength(0);
  });

  it('a look-up stopped with the worker decides nothing: taken again after its hold', async () => {
    const { deps, fake, lookups, parent } = await commentRead();
    const stopping = new AbortController();
    const findReply = fake.client.findReply;
    let stopped = 0;
    fake.client.findReply = async (request) => {
      stopped += 1;
      stopping.abort(new Error('worker stopping'));
      request.signal.throwIfAborted();
      return findReply(request);
    };
    await leftSending(deps, parent, 'key-stop', 'interrupted');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    expect(await settleAbandonedReplies(deps, stopping.signal)).toMatchObject({ postponed: 1 });
    expect(await stateOf(deps, parent, 'key-stop')).toBe('sending');
    fake.client.findReply = findReply;
    expect((await settleAbandonedReplies(deps)).claimed).toBe(0);
    deps.clock.advance(REPLY_IN_FLIGHT_MS);
    expect(await settleAbandonedReplies(deps)).toMatchObject({ claimed: 1, outcomeUnknown: 1 });
    expect(stopped).toBe(1);
    expect(lookups).toEqual(['interrupted']);
  });

  it('leaves a reply younger than the in-flight time to its request', async () => {
    const { deps, lookups, parent } = await commentRead();
    await leftSending(deps, parent, 'key-young', 'still going');
    deps.clock.advance(REPLY_IN_FLIGHT_MS - 1);
    expect((await settleAbandonedReplies(deps)).claimed).toBe(0);
    expect(await stateOf(deps, parent, 'key-young')).toBe('sending');
    expect(lookups).toHaveLength(0);
    deps.clock.advance(2);
    expect((await settleAbandonedReplies(deps)).claimed).toBe(1);
  });

  it('two sweeps at once look each reply up once; a retry meanwhile waits for the look-up', async () => {
    const { deps, fake, lookups, parent, actor } = await commentRead();
    for (let n = 0; n < 6; n++) await leftSending(deps, parent, `key-${n}`, `reply ${n}`);
    postedMeanwhile(fake, parent, 'reply 2');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    let releaseLookups = () => {};
    const held = new Promise<void>((resolve) => {
      releaseLookups = resolve;
    });
    const findReply = fake.client.findReply;
    fake.client.findReply = async (request) => {
      await held;
      return findReply(request);
    };
    const sweeps = Promise.all([settleAbandonedReplies(deps), settleAbandonedReplies(deps)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Every reply is held by a sweep's look-up: a retry with its key is told to ask again.
    const retry = errorOf(await replyToComment(deps, actor, parent.id, 'reply 0', 'key-0'));
    expect(retry).toMatchObject({ code: 'conflict' });
    expect(retry.message).toMatch(/ask again shortly/);
    releaseLookups();
    const reports = await sweeps;
    expect(reports.reduce((sum, report) => sum + report.claimed, 0)).toBe(6);
    expect([...lookups].sort()).toEqual([0, 1, 2, 3, 4, 5].map((n) => `reply ${n}`));
    expect(reports.reduce((sum, report) => sum + report.sent, 0)).toBe(1);
    expect(fake.replies).toHaveLength(0);
  });

  it('spends the read budget: out of it, the reply waits for a later pass', async () => {
    const { deps, lookups, parent, connection } = await commentRead();
    const pacer = createMemoryPacer();
    const budget = { count: 1, windowMs: HOUR };
    deps.pacing = { pacer, limitOf: () => null, readLimitOf: () => budget };
    await leftSending(deps, parent, 'key-paced', 'later');
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    await pacer.take(readPaceKey(connection), budget, 'a comments read', deps.clock.now());
    expect(await settleAbandonedReplies(deps)).toMatchObject({ claimed: 1, postponed: 1 });
    expect(await stateOf(deps, parent, 'key-paced')).toBe('sending');
    expect(lookups).toHaveLength(0);
    deps.clock.advance(HOUR + MINUTE);
    expect(await settleAbandonedReplies(deps)).toMatchObject({ claimed: 1, outcomeUnknown: 1 });
    expect(lookups).toEqual(['later']);
  });

  it('a reply whose connection was removed ends outcome_unknown, naming why', async () => {
    const { deps, lookups, parent, connection } = await commentRead();
    await leftSending(deps, parent, 'key-orphan', 'nobody home');
    await deps.repos.socialAccounts.delete(connection.id);
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    expect(await settleAbandonedReplies(deps)).toMatchObject({ outcomeUnknown: 1 });
    const stored = await deps.repos.comments.findReply(parent.accountId, 'key-orphan');
    expect(stored).toMatchObject({ state: 'outcome_unknown' });
    expect(stored?.error).toMatch(/could not be looked for: the social account was removed/);
    expect(lookups).toHaveLength(0);
  });

  it(`settles at most ${REPLY_SWEEP_PASS_SIZE} replies a pass`, async () => {
    const { deps, parent } = await commentRead();
    for (let n = 0; n < REPLY_SWEEP_PASS_SIZE + 3; n++) {
      await leftSending(deps, parent, `key-many-${n}`, `many ${n}`);
    }
    deps.clock.advance(REPLY_IN_FLIGHT_MS + 1);
    expect((await settleAbandonedReplies(deps)).claimed).toBe(REPLY_SWEEP_PASS_SIZE);
    expect((await settleAbandonedReplies(deps)).claimed).toBe(3);
  });
});
