import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeInstagram,
  type Harness,
  INSTAGRAM_ERRORS,
  type InstagramError,
  makeRequest,
  publisherFor,
  startFakeInstagram,
  testConfig,
} from './helpers.ts';

const IG_USER = '17841400000000001';
const IMAGE = 'https://cdn.example.com/photo.jpg';
const VIDEO = 'https://cdn.example.com/reel.mp4';

let fake: FakeInstagram;
beforeAll(async () => {
  fake = await startFakeInstagram({ videoProcessingPolls: 2 });
});
afterAll(() => fake.close());

const config = () => testConfig({ instagram: { apiBaseUrl: fake.baseUrl, graphVersion: '21.0' } });
const publisher = () => publisherFor('instagram', config());
const creates = (from: number) =>
  fake.requests.slice(from).filter((r) => r.method === 'POST' && r.path.endsWith('/media'));
const publishes = (from: number) =>
  fake.requests.slice(from).filter((r) => r.path.endsWith('/media_publish'));

describe('instagram publisher', () => {
  it('publishes an image: container, stored id, status poll, media_publish, permalink', async () => {
    const from = fake.requests.length;
    const h = makeRequest({ platform: 'instagram', mediaUrls: [IMAGE], content: 'Caption #one' });
    let requestsAtSave = -1;
    const save = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      if (requestsAtSave < 0) requestsAtSave = fake.requests.length;
      await save(state);
    };
    const outcome = expectPublished(await publisher().publish(h.request));

    const [create] = creates(from);
    expect(create?.path).toBe(`/v21.0/${IG_USER}/media`);
    expect(create?.query.access_token).toBe('access-1');
    expect(create?.body).toEqual({ image_url: IMAGE, caption: 'Caption #one' });
    const container = fake.containers.at(-1);
    const media = fake.media.at(-1);
    expect(h.progress[0]).toMatchObject({ containerId: container?.id });
    expect(h.progress.at(-1)).toMatchObject({ containerId: container?.id, mediaId: media?.id });
    const poll = fake.requests.slice(from).find((r) => r.path === `/v21.0/${container?.id}`);
    expect(poll?.query.fields).toBe('status_code,status');
    expect(fake.requests.indexOf(poll as never)).toBeGreaterThanOrEqual(requestsAtSave);
    const [publish] = publishes(from);
    expect(publish?.query.creation_id).toBe(container?.id);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: media?.id,
      platformUrl: media?.permalink,
    });
    expect(outcome.platformUrl).toMatch(/^https:\/\/www\.instagram\.com\/p\//);
  });

  it('publishes a video as a Reel after polling IN_PROGRESS', async () => {
    const from = fake.requests.length;
    const h = makeRequest({ platform: 'instagram', mediaUrls: [VIDEO] });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(creates(from)[0]?.body).toEqual({
      media_type: 'REELS',
      video_url: VIDEO,
      caption: h.request.post.content,
      share_to_feed: 'true',
    });
    const id = fake.containers.at(-1)?.id;
    const polls = fake.requests.slice(from).filter((r) => r.path === `/v21.0/${id}`);
    expect(polls).toHaveLength(3); // IN_PROGRESS x2, FINISHED
    expect(outcome.platformUrl).toMatch(/\/reel\//);
  });

  it('publishes a carousel: children, then the parent with children=ids', async () => {
    const from = fake.requests.length;
    const urls = [IMAGE, 'https://cdn.example.com/two.png', VIDEO];
    const h = makeRequest({ platform: 'instagram', mediaUrls: urls, content: 'Three things' });
    expectPublished(await publisher().publish(h.request));
    const bodies = creates(from).map((r) => r.body);
    const childIds = fake.containers.slice(-4, -1).map((c) => c.id);
    expect(bodies).toEqual([
      { is_carousel_item: 'true', image_url: urls[0] },
      { is_carousel_item: 'true', image_url: urls[1] },
      { is_carousel_item: 'true', media_type: 'VIDEO', video_url: VIDEO },
      { media_type: 'CAROUSEL', children: childIds.join(','), caption: 'Three things' },
    ]);
    expect(h.progress[0]).toEqual(expect.objectContaining({ childIds }));
    expect(h.progress[1]).toEqual(
      expect.objectContaining({ childIds, containerId: fake.containers.at(-1)?.id }),
    );
    expect(publishes(from)).toHaveLength(1);
  });

  describe('errors keep the Graph code and message, with our retry decision', () => {
    const cases: [string, InstagramError, string, boolean | 'wait'][] = [
      ['throttled 4', INSTAGRAM_ERRORS.appRateLimit, '4', 'wait'],
      ['throttled 17', INSTAGRAM_ERRORS.userRateLimit, '17', 'wait'],
      ['throttled 341', INSTAGRAM_ERRORS.appLimit, '341', 'wait'],
      ['media fetch failed', INSTAGRAM_ERRORS.mediaFetchFailed, '2207052', true],
      ['download timeout', INSTAGRAM_ERRORS.downloadTimeout, '2207003', true],
      ['permission 10', INSTAGRAM_ERRORS.permission, '10', false],
      ['permission 200', INSTAGRAM_ERRORS.permission200, '200', false],
      ['policy block 368', INSTAGRAM_ERRORS.policyBlock, '368', false],
      ['duplicate 506', INSTAGRAM_ERRORS.duplicate, '506', false],
      ['spam restriction 4/2207051', INSTAGRAM_ERRORS.spamRestricted, '2207051', false],
      ['daily limit', INSTAGRAM_ERRORS.dailyLimit, '2207042', 'wait'],
      ['image too large', INSTAGRAM_ERRORS.imageTooLarge, '2207004', false],
      ['bad video format', INSTAGRAM_ERRORS.badVideoFormat, '2207026', false],
    ];
    it.each(cases)('%s -> code %s, retryable %s', async (_name, error, code, retryable) => {
      fake.script({ error, on: 'create' });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'instagram', mediaUrls: [IMAGE] }).request,
      );
      if (retryable === 'wait') {
        expect(outcome).toMatchObject({ kind: 'throttled', code });
        expect(outcome.kind === 'throttled' && outcome.message).toContain(error.message);
        const waitMs = outcome.kind === 'throttled' ? outcome.retryAt.getTime() - Date.now() : 0;
        expect(waitMs).toBeGreaterThan(9 * 60_000);
      } else {
        expect(outcome).toEqual({ kind: 'failed', code, message: error.message, retryable });
      }
    });

    it('a throttled media_publish waits, and a resume publishes once', async () => {
      const from = fake.requests.length;
      fake.script({ error: INSTAGRAM_ERRORS.appRateLimit, on: 'publish' });
      const first = makeRequest({ platform: 'instagram', mediaUrls: [IMAGE] });
      expect(await publisher().publish(first.request)).toMatchObject({
        kind: 'throttled',
        code: '4',
      });
      expectPublished(await publisher().resume(afterCrash(first).request));
      expect(creates(from)).toHaveLength(1);
      expect(fake.containers.at(-1)?.published).toBe(true);
    });

    it.each([
      ['ERROR', 'Error: Media upload has failed with error code 2207026'],
      ['EXPIRED', 'Expired: the container was not published within 24 hours.'],
    ] as const)('a container ending %s fails, not retryable', async (status, text) => {
      fake.script({ containerStatus: status });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'instagram', mediaUrls: [IMAGE] }).request,
      );
      expect(outcome).toMatchObject({ kind: 'failed', code: status, retryable: false });
      expect(outcome.kind === 'failed' && outcome.message).toContain(text);
    });

    it('error 190 ends with connection_expired (no refresh for Instagram)', async () => {
      fake.expireAccessToken('ig-expired');
      const h = makeRequest({
        platform: 'instagram',
        mediaUrls: [IMAGE],
        accessToken: 'ig-expired',
      });
      const outcome = await publisher().publish(h.request);
      expect(outcome.kind).toBe('connection_expired');
      expect(outcome.kind === 'connection_expired' && outcome.message).toContain(
        INSTAGRAM_ERRORS.tokenExpired.message,
      );
      expect(h.tokens).toHaveLength(0);
    });

    it('a dropped connection is a retryable network_error', async () => {
      fake.script({ drop: true, on: 'create' });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'instagram', mediaUrls: [IMAGE] }).request,
      );
      expect(outcome).toMatchObject({ kind: 'failed', code: 'network_error', retryable: true });
    });
  });

  describe('resume after a crash', () => {
    async function crashAfterFirstProgress(h: Harness) {
      const save = h.request.saveProgress;
      h.request.saveProgress = async (state) => {
        await save(state);
        h.controller.abort(new Error('worker crashed'));
      };
      await expect(publisher().publish(h.request)).rejects.toThrow();
    }

    it('container IN_PROGRESS: keeps polling and publishes once, no second container', async () => {
      const from = fake.requests.length;
      fake.script({ processingPolls: 3 });
      const first = makeRequest({ platform: 'instagram', mediaUrls: [VIDEO] });
      await crashAfterFirstProgress(first);
      const second = afterCrash(first);
      expectPublished(await publisher().resume(second.request));
      expect(creates(from)).toHaveLength(1);
      expect(publishes(from)).toHaveLength(1);
    });

    it('container PUBLISHED but no media id stored: the media is found by its caption, no second publish', async () => {
      const from = fake.requests.length;
      fake.script({ dropAfterPublish: true });
      const first = makeRequest({
        platform: 'instagram',
        mediaUrls: [IMAGE],
        content: 'Lost answer',
      });
      // media_publish took effect but its answer was lost
      expect(await publisher().publish(first.request)).toMatchObject({
        code: 'network_error',
        retryable: true,
      });
      const made = fake.media.at(-1);
      const outcome = await publisher().resume(afterCrash(first).request);
      expect(outcome).toEqual({
        kind: 'published',
        platformPostId: made?.id,
        platformUrl: made?.permalink,
      });
      expect(publishes(from)).toHaveLength(1);
      expect(creates(from)).toHaveLength(1);
    });

    it('container PUBLISHED, no media id stored and no caption to find it by: the container id stands in', async () => {
      const from = fake.requests.length;
      fake.script({ dropAfterPublish: true });
      const first = makeRequest({ platform: 'instagram', mediaUrls: [IMAGE], content: '' });
      expect(await publisher().publish(first.request)).toMatchObject({ code: 'network_error' });
      const containerId = fake.containers.at(-1)?.id;
      const outcome = await publisher().resume(afterCrash(first).request);
      expect(outcome).toEqual({
        kind: 'published',
        platformPostId: containerId,
        platformUrl: null,
      });
      expect(publishes(from)).toHaveLength(1);
    });

    it('media id stored: only the permalink is read', async () => {
      const done = makeRequest({ platform: 'instagram', mediaUrls: [IMAGE] });
      const published = expectPublished(await publisher().publish(done.request));
      const from = fake.requests.length;
      const outcome = await publisher().resume(afterCrash(done).request);
      expect(outcome).toEqual(published);
      expect(creates(from)).toHaveLength(0);
      expect(publishes(from)).toHaveLength(0);
    });

    it('carousel children stored without a parent: the parent is created from them', async () => {
      const from = fake.requests.length;
      const first = makeRequest({ platform: 'instagram', mediaUrls: [IMAGE, VIDEO] });
      await crashAfterFirstProgress(first);
      expect(first.progress[0]).toHaveProperty('childIds');
      expect(first.progress[0]).not.toHaveProperty('containerId');
      expectPublished(await publisher().resume(afterCrash(first).request));
      const bodies = creates(from).map((r) => r.body as Record<string, string>);
      expect(bodies).toHaveLength(3); // two children, one parent
      expect(bodies[2]?.children).toBe(((first.progress[0]?.childIds ?? []) as string[]).join(','));
      expect(publishes(from)).toHaveLength(1);
    });

    it('nothing stored: publishes from scratch', async () => {
      const from = fake.requests.length;
      expectPublished(
        await publisher().resume(
          makeRequest({ platform: 'instagram', mediaUrls: [IMAGE] }).request,
        ),
      );
      expect(creates(from)).toHaveLength(1);
    });
  });

  it('past the poll bound the target fails with platform_timeout', async () => {
    fake.script({ processingPolls: 1_000_000 });
    const slow = publisherFor('instagram', { ...config(), pollIntervalMs: 10, pollTimeoutMs: 100 });
    const outcome = await slow.publish(
      makeRequest({ platform: 'instagram', mediaUrls: [VIDEO] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'platform_timeout', retryable: false });
  });
});
