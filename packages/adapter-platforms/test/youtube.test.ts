import { createGuardedDispatcher } from '@social-publisher/net-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeYoutube,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeYoutube,
  startMediaServer,
  testConfig,
  YOUTUBE_ERRORS,
  type YoutubeError,
} from './helpers.ts';

const SIZE = 3 * 1024 * 1024 + 123;

let fake: FakeYoutube;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeYoutube(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const config = () =>
  testConfig({
    youtube: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'cid',
      clientSecret: 'csecret',
    },
  });
const publisher = () => publisherFor('youtube', config());
const video = (name = 'clip.mp4', size = SIZE) => media.url(name, size);
const uploads = (from: number) =>
  fake.requests
    .slice(from)
    .filter(
      (r) =>
        'upload_id' in r.query && !String(r.headers['content-range'] ?? '').startsWith('bytes */'),
    );
const statusQueries = (from: number) =>
  fake.requests
    .slice(from)
    .filter((r) => String(r.headers['content-range'] ?? '').startsWith('bytes */'));

describe('youtube publisher', () => {
  it('creates a resumable session, stores it, streams the bytes and returns the watch URL', async () => {
    const from = fake.requests.length;
    const h = makeRequest({
      platform: 'youtube',
      mediaUrls: [video()],
      content: '  My first upload  \nA longer description.',
    });
    let sessionsAtSave = -1;
    let uploadsAtSave = -1;
    const save = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      sessionsAtSave = fake.sessions.length;
      uploadsAtSave = uploads(from).length;
      await save(state);
    };
    const outcome = expectPublished(await publisher().publish(h.request));
    const session = fake.sessions.at(-1);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: session?.videoId,
      platformUrl: `https://www.youtube.com/watch?v=${session?.videoId}`,
    });
    const start = fake.requests[from];
    expect(start?.path).toBe('/upload/youtube/v3/videos');
    expect(start?.query).toEqual({ uploadType: 'resumable', part: 'snippet,status' });
    expect(start?.headers['x-upload-content-length']).toBe(String(SIZE));
    expect(start?.headers['x-upload-content-type']).toBe('video/mp4');
    expect(start?.headers.authorization).toBe('Bearer access-1');
    expect(start?.body).toEqual({
      snippet: {
        title: 'My first upload',
        description: '  My first upload  \nA longer description.',
        categoryId: '22',
      },
      status: { privacyStatus: 'private' },
    });
    expect(h.progress).toEqual([
      { sessionUrl: session?.url, totalBytes: SIZE, contentType: 'video/mp4' },
    ]);
    expect(sessionsAtSave).toBe(1 + fake.sessions.indexOf(session as never));
    expect(uploadsAtSave).toBe(0);
    expect(session).toMatchObject({ receivedBytes: SIZE, patternOk: true, uploads: 1 });
    expect(uploads(from)[0]?.body).toEqual({ bytes: SIZE });
    // the media was probed with HEAD through the media dispatcher, then streamed once
    expect(media.requests.slice(-2).map((r) => r.method)).toEqual(['HEAD', 'GET']);
  });

  it('uses platform_options.youtube.privacyStatus and falls back to "Untitled"', async () => {
    const from = fake.requests.length;
    const h = makeRequest({
      platform: 'youtube',
      mediaUrls: [video('small.mp4', 1000)],
      content: '',
      platformOptions: { youtube: { privacyStatus: 'unlisted' } },
    });
    expectPublished(await publisher().publish(h.request));
    expect(fake.requests[from]?.body).toMatchObject({
      snippet: { title: 'Untitled', description: '' },
      status: { privacyStatus: 'unlisted' },
    });
  });

  it('cuts the title to 100 characters', async () => {
    const from = fake.requests.length;
    const long = `${'é'.repeat(150)}\nrest`;
    const h = makeRequest({ platform: 'youtube', mediaUrls: [video('t.mp4', 10)], content: long });
    expectPublished(await publisher().publish(h.request));
    const title =
      (fake.requests[from]?.body as { snippet: { title: string } } | undefined)?.snippet.title ??
      '';
    expect(Array.from(title)).toHaveLength(100);
  });

  it('falls back to GET for the size when HEAD is refused', async () => {
    media.script({ refuseHead: true });
    const h = makeRequest({ platform: 'youtube', mediaUrls: [video('nohead.mp4', 5000)] });
    expectPublished(await publisher().publish(h.request));
    expect(fake.sessions.at(-1)?.totalBytes).toBe(5000);
  });

  describe('errors keep the reason and message, with our retry decision', () => {
    const cases: [YoutubeError, 'start' | 'upload', boolean | 'wait'][] = [
      [YOUTUBE_ERRORS.quotaExceeded, 'start', 'wait'],
      [YOUTUBE_ERRORS.uploadLimitExceeded, 'start', false],
      [YOUTUBE_ERRORS.forbidden, 'start', false],
      [YOUTUBE_ERRORS.backendError, 'start', true],
      [YOUTUBE_ERRORS.rateLimitExceeded, 'start', 'wait'],
      [YOUTUBE_ERRORS.backendError, 'upload', true],
      [YOUTUBE_ERRORS.quotaExceeded, 'upload', 'wait'],
    ];
    it.each(cases)('$reason on $1 -> retryable $2', async (error, on, retryable) => {
      fake.script({ error, on });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'youtube', mediaUrls: [video('e.mp4', 2048)] }).request,
      );
      const expected = { code: error.reason, message: error.message };
      if (retryable === 'wait') {
        expect(outcome).toMatchObject({ kind: 'throttled', ...expected });
      } else {
        expect(outcome).toEqual({ kind: 'failed', ...expected, retryable });
      }
    });

    it.each([
      [404, false],
      [410, false],
      [503, true],
    ])('media answering %i -> media_fetch_failed, retryable %s', async (status, retryable) => {
      const sessions = fake.sessions.length;
      media.script({ status, times: 2 });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'youtube', mediaUrls: [video('gone.mp4', 10)] }).request,
      );
      expect(outcome).toMatchObject({ kind: 'failed', code: 'media_fetch_failed', retryable });
      expect(fake.sessions.length).toBe(sessions);
    });

    it('a media URL refused by the SSRF guard fails for good, before any session', async () => {
      const sessions = fake.sessions.length;
      const guarded = publisherFor('youtube', {
        ...config(),
        mediaDispatcher: createGuardedDispatcher({ allowPrivateNetworks: false }),
      });
      const outcome = await guarded.publish(
        makeRequest({ platform: 'youtube', mediaUrls: [video('internal.mp4', 10)] }).request,
      );
      expect(outcome).toMatchObject({
        kind: 'failed',
        code: 'media_url_refused',
        retryable: false,
      });
      expect(outcome.kind === 'failed' && outcome.message).toContain('127.0.0.1');
      expect(fake.sessions.length).toBe(sessions);
    });
  });

  describe('expired tokens', () => {
    it('refreshes through the oauth /token endpoint, keeps the refresh token and retries', async () => {
      fake.expireAccessToken('ya29.expired-1');
      const from = fake.requests.length;
      const h = makeRequest({
        platform: 'youtube',
        mediaUrls: [video('r.mp4', 4096)],
        accessToken: 'ya29.expired-1',
        refreshToken: '1//refresh-1',
      });
      expectPublished(await publisher().publish(h.request));
      const token = fake.requests.slice(from).find((r) => r.path === '/token');
      expect(token?.body).toEqual({
        client_id: 'cid',
        client_secret: 'csecret',
        refresh_token: '1//refresh-1',
        grant_type: 'refresh_token',
      });
      expect(h.tokens).toEqual([
        {
          accessToken: expect.stringMatching(/^ya29\.refreshed-/),
          refreshToken: '1//refresh-1', // Google sends none back: the old one stays
          expiresAt: expect.any(Date),
        },
      ]);
      expect(uploads(from)[0]?.headers.authorization).toBe(`Bearer ${h.tokens[0]?.accessToken}`);
    });

    it('invalid_grant ends with connection_expired', async () => {
      fake.expireAccessToken('ya29.expired-2');
      fake.revokeRefreshToken('1//revoked');
      const h = makeRequest({
        platform: 'youtube',
        mediaUrls: [video('r.mp4', 4096)],
        accessToken: 'ya29.expired-2',
        refreshToken: '1//revoked',
      });
      const outcome = await publisher().publish(h.request);
      expect(outcome.kind).toBe('connection_expired');
      expect(outcome.kind === 'connection_expired' && outcome.message).toContain('invalid_grant');
    });
  });

  describe('resume', () => {
    it('after a connection dropped mid-upload: asks the session, fetches the rest by Range, no second session', async () => {
      const from = fake.requests.length;
      const mediaFrom = media.requests.length;
      const url = video('drop.mp4');
      fake.script({ dropAfterBytes: 1_000_000 });
      const first = makeRequest({ platform: 'youtube', mediaUrls: [url] });
      expect(await publisher().publish(first.request)).toMatchObject({
        kind: 'failed',
        code: 'network_error',
        retryable: true,
      });
      const session = fake.sessions.at(-1);
      expect(session?.receivedBytes).toBe(1_000_000);

      const outcome = expectPublished(await publisher().resume(afterCrash(first).request));
      expect(outcome.platformPostId).toBe(session?.videoId);
      expect(fake.sessions.at(-1)).toBe(session);
      expect(fake.requests.slice(from).filter((r) => r.method === 'POST')).toHaveLength(1);
      expect(statusQueries(from)[0]?.headers['content-range']).toBe(`bytes */${SIZE}`);
      const rest = uploads(from)[1];
      expect(rest?.headers['content-range']).toBe(`bytes 1000000-${SIZE - 1}/${SIZE}`);
      expect(rest?.headers['content-length']).toBe(String(SIZE - 1_000_000));
      expect(media.requests.slice(mediaFrom).at(-1)?.headers.range).toBe(
        `bytes=1000000-${SIZE - 1}`,
      );
      expect(session).toMatchObject({ receivedBytes: SIZE, patternOk: true, uploads: 2 });
    });

    it('skips the bytes already sent when the media server ignores Range', async () => {
      const url = video('norange.mp4');
      fake.script({ dropAfterBytes: 700_001 });
      const first = makeRequest({ platform: 'youtube', mediaUrls: [url] });
      await publisher().publish(first.request);
      media.script({ ignoreRange: true });
      expectPublished(await publisher().resume(afterCrash(first).request));
      expect(fake.sessions.at(-1)).toMatchObject({ receivedBytes: SIZE, patternOk: true });
    });

    it('an upload that completed before the crash is found by the status query: no bytes sent again', async () => {
      const done = makeRequest({ platform: 'youtube', mediaUrls: [video('done.mp4', 2000)] });
      const published = expectPublished(await publisher().publish(done.request));
      const from = fake.requests.length;
      const outcome = await publisher().resume(afterCrash(done).request);
      expect(outcome).toEqual(published);
      expect(uploads(from)).toHaveLength(0);
      expect(statusQueries(from)).toHaveLength(1);
    });

    it('a session lost before any byte (308 without Range) uploads from byte 0', async () => {
      const url = video('zero.mp4', 9000);
      fake.script({ drop: true, on: 'upload' });
      const first = makeRequest({ platform: 'youtube', mediaUrls: [url] });
      expect(await publisher().publish(first.request)).toMatchObject({ retryable: true });
      const mediaFrom = media.requests.length;
      expectPublished(await publisher().resume(afterCrash(first).request));
      expect(media.requests.slice(mediaFrom).at(-1)?.headers.range).toBeUndefined();
      expect(fake.sessions.at(-1)).toMatchObject({ receivedBytes: 9000, patternOk: true });
    });

    it('nothing stored: starts a session', async () => {
      const count = fake.sessions.length;
      expectPublished(
        await publisher().resume(
          makeRequest({ platform: 'youtube', mediaUrls: [video('new.mp4', 100)] }).request,
        ),
      );
      expect(fake.sessions.length).toBe(count + 1);
    });
  });

  it('an abort mid-upload throws and leaves the session resumable', async () => {
    const h = makeRequest({
      platform: 'youtube',
      mediaUrls: [video('abort.mp4', 50 * 1024 * 1024)],
    });
    const save = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      await save(state);
      setTimeout(() => h.controller.abort(new Error('shutdown')), 5);
    };
    await expect(publisher().publish(h.request)).rejects.toThrow();
    expect(h.progress).toHaveLength(1);
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.sessions.at(-1)).toMatchObject({
      patternOk: true,
      receivedBytes: 50 * 1024 * 1024,
    });
  });
});
