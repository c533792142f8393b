import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bluesky } from '../src/bluesky/descriptor.ts';
import { recordKey } from '../src/bluesky/record-key.ts';
import { facetsOf, graphemeLength } from '../src/bluesky/text.ts';
import {
  afterCrash,
  expectPublished,
  type FakeBluesky,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeBluesky,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeBluesky;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeBluesky(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const publisher = () =>
  publisherFor('bluesky', testConfig({ bluesky: { serviceUrl: fake.baseUrl } }));
const request = (content: string, extra: Partial<Parameters<typeof makeRequest>[0]> = {}) => {
  const session = fake.issueSession();
  return makeRequest({
    platform: 'bluesky',
    content,
    externalId: fake.account.did,
    accessToken: session.accessJwt,
    refreshToken: session.refreshJwt,
    ...extra,
  });
};
const postOf = (uri: string | undefined) => fake.posts.find((post) => post.uri === uri);
/** The next run of `h`'s target (afterCrash builds a new post: the original's time is kept). */
const nextRun = (h: ReturnType<typeof request>) => {
  const next = afterCrash(h);
  next.request.post.createdAt = h.request.post.createdAt;
  return next;
};
/** The bytes of `text` a facet covers, decoded. */
const covered = (text: string, index: { byteStart: number; byteEnd: number }) =>
  Buffer.from(text).subarray(index.byteStart, index.byteEnd).toString('utf8');

describe('bluesky text', () => {
  it('counts graphemes: a family emoji or an accented letter is one', () => {
    expect(graphemeLength('👨‍👩‍👧‍👦')).toBe(1);
    expect(graphemeLength('e\u0301')).toBe(1);
    expect(graphemeLength('héllo 🇫🇷')).toBe(7);
    expect(bluesky.rules.contentMaxLength).toBe(300);
    expect(bluesky.rules.contentLength?.('🙂'.repeat(300))).toBe(300);
  });

  it('places links and tags by UTF-8 byte offsets, after emoji and accents', () => {
    const text = 'Café 👨‍👩‍👧 see https://example.com/a?b=1, and #launch! #2024';
    const facets = facetsOf(text);
    expect(facets).toHaveLength(2);
    const [link, tag] = facets;
    expect(link?.features[0]).toEqual({
      $type: 'app.bsky.richtext.facet#link',
      uri: 'https://example.com/a?b=1',
    });
    expect(covered(text, link?.index ?? { byteStart: 0, byteEnd: 0 })).toBe(
      'https://example.com/a?b=1',
    );
    // UTF-16 offsets would be wrong here: the emoji and é take more bytes than code units.
    expect(link?.index.byteStart).toBe(Buffer.byteLength('Café 👨‍👩‍👧 see '));
    expect(link?.index.byteStart).not.toBe(text.indexOf('https'));
    expect(tag?.features[0]).toEqual({ $type: 'app.bsky.richtext.facet#tag', tag: 'launch' });
    expect(covered(text, tag?.index ?? { byteStart: 0, byteEnd: 0 })).toBe('#launch');
  });

  it('a # inside a URL is not a tag', () => {
    expect(facetsOf('read https://example.com/page#section')).toHaveLength(1);
  });

  it('record keys are valid TIDs, the same for the same target and part', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const key = recordKey(at, 'target-1', 0);
    expect(key).toMatch(/^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/);
    expect(recordKey(at, 'target-1', 0)).toBe(key);
    expect(recordKey(at, 'target-1', 1)).not.toBe(key);
    expect(recordKey(at, 'target-2', 0)).not.toBe(key);
  });
});

describe('bluesky publisher', () => {
  it('posts the text with its facets under a derived key and answers the at:// URI', async () => {
    const text = 'Ünïcode 🎉 first: https://example.org/x #news';
    const h = request(text);
    const outcome = expectPublished(await publisher().publish(h.request));
    const post = postOf(outcome.platformPostId);
    expect(post?.record.text).toBe(text);
    expect(post?.rkey).toBe(recordKey(h.request.post.createdAt, h.request.target.id, 0));
    expect(outcome.platformUrl).toBe(
      `https://bsky.app/profile/${fake.account.did}/post/${post?.rkey}`,
    );
    const facets = post?.record.facets as { index: { byteStart: number; byteEnd: number } }[];
    expect(facets.map((facet) => covered(text, facet.index))).toEqual([
      'https://example.org/x',
      '#news',
    ]);
    expect(h.countedAt).toHaveLength(1);
  });

  it('uploads up to 4 images as blobs and embeds them', async () => {
    const urls = [media.url('a.jpg', 2048), media.url('b.png', 4096)];
    const before = fake.blobs.length;
    const outcome = expectPublished(
      await publisher().publish(request('Two pictures', { mediaUrls: urls }).request),
    );
    const embed = postOf(outcome.platformPostId)?.record.embed as {
      $type: string;
      images: { image: { ref: { $link: string }; size: number } }[];
    };
    expect(embed.$type).toBe('app.bsky.embed.images');
    expect(embed.images.map((image) => image.image.size)).toEqual([2048, 4096]);
    expect(fake.blobs.slice(before).map((blob) => blob.mimeType)).toEqual([
      'image/jpeg',
      'image/png',
    ]);
  });

  it('an image over 1,000,000 bytes fails clearly and creates nothing', async () => {
    const before = fake.posts.length;
    const outcome = await publisher().publish(
      request('Too big', { mediaUrls: [media.url('big.jpg', 1_000_001)] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'media_too_large', retryable: false });
    expect(fake.posts.length).toBe(before);
  });

  it('embeds one video', async () => {
    const outcome = expectPublished(
      await publisher().publish(
        request('A clip', { mediaUrls: [media.url('clip.mp4', 300_000)] }).request,
      ),
    );
    const embed = postOf(outcome.platformPostId)?.record.embed as {
      $type: string;
      video: { size: number };
    };
    expect(embed).toMatchObject({ $type: 'app.bsky.embed.video', video: { size: 300_000 } });
  });

  it('validates 4 images or 1 video, in the post and each follow-up', () => {
    const pub = publisher();
    const photos = (n: number) => Array.from({ length: n }, (_, i) => `https://e.x/${i}.jpg`);
    expect(pub.validate({ content: 'x', mediaUrls: photos(4), platformOptions: {} })).toEqual([]);
    expect(pub.validate({ content: 'x', mediaUrls: photos(5), platformOptions: {} })).toEqual([
      { field: 'media_urls', message: 'bluesky takes at most 4 photos per post' },
    ]);
    expect(
      pub.validate({
        content: 'x',
        mediaUrls: [],
        thread: [{ content: 'y', mediaUrls: ['https://e.x/a.mp4', 'https://e.x/b.mp4'] }],
        platformOptions: {},
      }),
    ).toEqual([{ field: 'thread[0].media_urls', message: 'bluesky takes one video per post' }]);
  });

  it('posts a thread: each follow-up replies to the one before, under the same root', async () => {
    const h = request('Root', {
      thread: [
        { content: 'Second', mediaUrls: [] },
        { content: 'Third', mediaUrls: [] },
      ],
      firstComment: 'A comment',
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const root = postOf(outcome.platformPostId);
    const [second, third] = (outcome.threadPostIds ?? []).map(postOf);
    const ref = (post: typeof root) => ({ uri: post?.uri, cid: post?.cid });
    expect(second?.record.reply).toEqual({ root: ref(root), parent: ref(root) });
    expect(third?.record.reply).toEqual({ root: ref(root), parent: ref(second) });
    const comment = postOf(outcome.firstCommentId ?? undefined);
    expect(comment?.record).toMatchObject({
      text: 'A comment',
      reply: { root: ref(root), parent: ref(root) },
    });
    // Each reference is stored before the next part goes out.
    expect(h.progress.map((p) => (p.thread as unknown[]).length)).toEqual([0, 1, 2]);
  });

  it('a follow-up Bluesky refuses fails the target with what was published kept', async () => {
    // Bluesky refuses a text over 300 graphemes (400 InvalidRequest): not retried.
    const h = request('Kept', {
      thread: [
        { content: 'Fine', mediaUrls: [] },
        { content: 'x'.repeat(301), mediaUrls: [] },
      ],
    });
    const outcome = await publisher().publish(h.request);
    const root = fake.posts.find((post) => post.record.text === 'Kept');
    const fine = fake.posts.find((post) => post.record.text === 'Fine');
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'invalid_request',
      retryable: false,
      publishedSoFar: { platformPostId: root?.uri, threadPostIds: [fine?.uri] },
    });
    expect(h.pendingIntent()).toBeNull();
  });

  it('a 429 waits until ratelimit-reset', async () => {
    const limited = await startFakeBluesky({ postLimit: 0 });
    try {
      const session = limited.issueSession();
      const h = makeRequest({
        platform: 'bluesky',
        content: 'Too many',
        externalId: limited.account.did,
        accessToken: session.accessJwt,
        refreshToken: session.refreshJwt,
      });
      const before = Date.now();
      const outcome = await publisherFor(
        'bluesky',
        testConfig({ bluesky: { serviceUrl: limited.baseUrl } }),
      ).publish(h.request);
      expect(outcome).toMatchObject({ kind: 'throttled', code: 'RateLimitExceeded' });
      const retryAt = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
      // The fake resets a minute from now (epoch seconds, jittered up to 10 %).
      expect(retryAt).toBeGreaterThan(before + 55_000);
      expect(retryAt).toBeLessThan(before + 70_000);
      expect(h.pendingIntent()).toBeNull();
    } finally {
      await limited.close();
    }
  });

  it('an expired access JWT is refreshed once (refreshSession) and the post goes out', async () => {
    const h = request('After a refresh');
    fake.expireAccessToken(h.request.connection.accessToken);
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(postOf(outcome.platformPostId)?.record.text).toBe('After a refresh');
    expect(h.tokens).toHaveLength(1);
    const [fresh] = h.tokens;
    expect(fresh?.refreshToken).not.toBe(h.request.connection.refreshToken);
    expect(fresh?.expiresAt?.getTime()).toBeGreaterThan(Date.now());
    const refreshes = fake.requests.filter((r) => r.path.endsWith('refreshSession'));
    expect(refreshes.at(-1)?.headers.authorization).toBe(
      `Bearer ${h.request.connection.refreshToken}`,
    );
  });

  it('a refused refresh ends the run connection_expired', async () => {
    const h = request('Never');
    fake.expireAccessToken(h.request.connection.accessToken);
    fake.revokeRefreshToken(h.request.connection.refreshToken ?? '');
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
    expect(outcome.kind === 'connection_expired' && outcome.message).toMatch(/ExpiredToken/);
  });
});

describe('bluesky publisher: never twice', () => {
  it('a createRecord whose answer was lost is found by getRecord on the next run', async () => {
    const h = request('Lost answer');
    fake.script({ dropAfterCreate: true, nsid: 'com.atproto.repo.createRecord' });
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    expect(h.pendingIntent()?.step).toBe('create_post');
    const created = fake.posts.filter((post) => post.record.text === 'Lost answer');
    expect(created).toHaveLength(1);

    const outcome = expectPublished(await publisher().resume(nextRun(h).request));
    expect(outcome.platformPostId).toBe(created[0]?.uri);
    expect(fake.posts.filter((post) => post.record.text === 'Lost answer')).toHaveLength(1);
    expect(fake.requests.at(-1)?.path).toBe('/xrpc/com.atproto.repo.getRecord');
  });

  it('without an intent, the second create under the same key is refused and answered with the first', async () => {
    const h = request('Twice sent');
    fake.script({ dropAfterCreate: true, nsid: 'com.atproto.repo.createRecord' });
    await publisher().publish(h.request);
    // A run that does not know of the intent sends again, under the same key.
    const retried = nextRun(h);
    retried.request.intent = null;
    const outcome = expectPublished(await publisher().publish(retried.request));
    const created = fake.posts.filter((post) => post.record.text === 'Twice sent');
    expect(created).toHaveLength(1);
    expect(outcome.platformPostId).toBe(created[0]?.uri);
    // The second create was refused (the key is taken) and the record read back.
    expect(fake.requests.slice(-2).map((r) => r.path)).toEqual([
      '/xrpc/com.atproto.repo.createRecord',
      '/xrpc/com.atproto.repo.getRecord',
    ]);
  });

  it('a follow-up whose answer was lost is found too, and the thread goes on', async () => {
    const h = request('Thread root', {
      thread: [
        { content: 'Lost reply', mediaUrls: [] },
        { content: 'Next reply', mediaUrls: [] },
      ],
    });
    // The main post's create goes through; the first follow-up's answer is lost.
    const runs = publisher();
    const first = await runs.publish({
      ...h.request,
      recordIntent: async (step) => {
        if (step === 'thread_0') {
          fake.script({ dropAfterCreate: true, nsid: 'com.atproto.repo.createRecord' });
        }
        await h.request.recordIntent(step);
      },
    });
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    expect(h.pendingIntent()?.step).toBe('thread_0');
    const outcome = expectPublished(await runs.resume(nextRun(h).request));
    const lost = fake.posts.filter((post) => post.record.text === 'Lost reply');
    expect(lost).toHaveLength(1);
    expect(outcome.threadPostIds?.[0]).toBe(lost[0]?.uri);
    expect(fake.posts.filter((post) => post.record.text === 'Next reply')).toHaveLength(1);
  });

  it('a resume after the main post went out sends only the remaining follow-ups', async () => {
    const h = request('Resumed root', {
      thread: [
        { content: 'R1', mediaUrls: [] },
        { content: 'R2', mediaUrls: [] },
      ],
    });
    fake.script({ drop: true, nsid: 'com.atproto.repo.createRecord' });
    // The first create is refused before reaching the fake's records: a network error.
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    const outcome = expectPublished(await publisher().resume(nextRun(h).request));
    expect(outcome.threadPostIds).toHaveLength(2);
    for (const text of ['Resumed root', 'R1', 'R2']) {
      expect(fake.posts.filter((post) => post.record.text === text)).toHaveLength(1);
    }
  });
});
