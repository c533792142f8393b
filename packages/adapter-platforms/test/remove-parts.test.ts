import { DependencyUnavailableError, type RemoveRequest } from '@social-publisher/domain';
import { describe, expect, it } from 'vitest';
import { fail, TokenRejected } from '../src/shared/outcome.ts';
import { throttled } from '../src/shared/rate-limit.ts';
import { PartGone, partsOf, removeParts } from '../src/shared/remove-parts.ts';

const request = (over: Partial<RemoveRequest> = {}): RemoveRequest => ({
  connection: {
    id: 'c',
    platform: 'threads',
    externalId: 'me',
    accessToken: 'a',
    refreshToken: null,
    tokenExpiresAt: null,
    platformData: null,
  },
  platformPostId: 'post',
  platformUrl: null,
  threadPostIds: ['reply-1', 'reply-2', 'reply-3'],
  firstCommentId: 'comment',
  signal: new AbortController().signal,
  ...over,
});

describe('removeParts', () => {
  it('deletes the follow-ups last first, then the first comment, then the post', () => {
    expect(partsOf(request()).map((part) => `${part.kind}:${part.id}`)).toEqual([
      'follow_up:reply-3',
      'follow_up:reply-2',
      'follow_up:reply-1',
      'first_comment:comment',
      'post:post',
    ]);
  });

  it('asks an id met twice once, and none that is empty', () => {
    const parts = partsOf(request({ threadPostIds: ['a', '', 'a'], firstCommentId: 'post' }));
    expect(parts.map((part) => part.id)).toEqual(['a', 'post']);
  });

  it('a part already gone counts as removed, and the next ones are still deleted', async () => {
    const asked: string[] = [];
    const outcome = await removeParts(request(), async (part) => {
      asked.push(part.id);
      if (part.kind === 'follow_up') throw new PartGone('no such post');
    });
    expect(outcome).toEqual({ kind: 'removed' });
    expect(asked).toHaveLength(5);
  });

  it('stops at the first failure, naming the part after the platform words', async () => {
    const asked: string[] = [];
    const outcome = await removeParts(request(), async (part) => {
      asked.push(part.id);
      if (part.kind === 'first_comment') throw fail('1', 'An unknown error', true);
    });
    expect(outcome).toEqual({
      kind: 'failed',
      code: '1',
      message: 'An unknown error (while deleting the first comment comment)',
      retryable: true,
    });
    expect(asked).toEqual(['reply-3', 'reply-2', 'reply-1', 'comment']);
  });

  it('a refused token is connection_expired, a throttle waits until its time', async () => {
    const expired = await removeParts(request(), async () => {
      throw new TokenRejected('190', 'Session expired');
    });
    expect(expired).toEqual({ kind: 'connection_expired', message: '190: Session expired' });
    const retryAt = new Date(Date.now() + 60_000);
    const waiting = await removeParts(request(), async () => {
      throw throttled('4', 'Application request limit reached', retryAt);
    });
    expect(waiting).toMatchObject({ kind: 'throttled', code: '4', retryAt });
  });

  it('an adapter bug is a failure not retried; an abort is rethrown', async () => {
    const bug = await removeParts(request(), async () => {
      throw new TypeError('x is undefined');
    });
    expect(bug).toEqual({
      kind: 'failed',
      code: 'adapter_error',
      message: 'x is undefined',
      retryable: false,
    });
    const controller = new AbortController();
    const aborted = removeParts(request({ signal: controller.signal }), async () => {
      controller.abort();
      throw new Error('aborted');
    });
    await expect(aborted).rejects.toThrow('aborted');
  });

  it("an outage of the service's own database (saving tokens) is rethrown, not a failure", async () => {
    const down = new DependencyUnavailableError('database', new Error('connect ECONNREFUSED'));
    await expect(removeParts(request(), () => Promise.reject(down))).rejects.toBe(down);
  });
});
