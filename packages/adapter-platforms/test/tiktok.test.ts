import { PaceDeferral } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeTiktok,
  type Harness,
  makeRequest,
  publisherFor,
  startFakeTiktok,
  TIKTOK_ERRORS,
  type TiktokErrorCode,
  testConfig,
} from './helpers.ts';

const VIDEO = 'https://cdn.example.com/clips/launch.mp4';
const PHOTOS = ['https://cdn.example.com/a.jpg', 'https://cdn.example.com/b.png'];
const PROXY = 'https://media-proxy.example.org/tiktok';

let fake: FakeTiktok;
beforeAll(async () => {
  fake = await startFakeTiktok({ verifiedUrlPrefixes: [PROXY, 'https://cdn.example.com/clips/'] });
});
afterAll(() => fake.close());

const config = () =>
  testConfig({
    tiktok: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'ck',
      clientSecret: 'cs',
      photoProxyUrl: PROXY,
    },
  });
const publisher = () => publisherFor('tiktok', config());

/** Requests to `path` since `from`. */
const calls = (path: string, from = 0) => fake.requests.slice(from).filter((r) => r.path === path);
const INIT = '/v2/post/publish/video/init/';
const STATUS = '/v2/post/publish/status/fetch/';

describe('tiktok publisher', () => {
  it('posts a video by PULL_FROM_URL, stores the publish_id before polling, returns the post id and URL', async () => {
    const from = fake.requests.length;
    const h = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO], content: 'Launch day!' });
    let requestsAtSave = -1;
    const save = h.request.saveProgress;
    h.request.saveProgress = async (state) => {
      requestsAtSave = fake.requests.length;
      await save(state);
    };
    const outcome = expectPublished(await publisher().publish(h.request));

    // int64 post id kept digit for digit (it does not survive JSON.parse as a number)
    expect(outcome.platformPostId).toMatch(/^73012345678901234\d\d$/);
    expect(outcome.platformUrl).toBe(
      `https://www.tiktok.com/@fake.creator/video/${outcome.platformPostId}`,
    );
    const [creator] = calls('/v2/post/publish/creator_info/query/', from);
    expect(creator?.headers.authorization).toBe('Bearer access-1');
    const [init] = calls(INIT, from);
    expect(init?.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(init?.body).toEqual({
      post_info: {
        title: 'Launch day!',
        privacy_level: 'SELF_ONLY', // default: SELF_ONLY offered by the creator
        disable_comment: false,
        disable_duet: false,
        disable_stitch: false,
        brand_content_toggle: false,
        brand_organic_toggle: false,
        is_aigc: false,
      },
      source_info: { source: 'PULL_FROM_URL', video_url: VIDEO },
    });
    const publishId = fake.publishes.at(-1)?.publishId;
    expect(h.progress).toEqual([
      expect.objectContaining({
        publishId,
        draft: false,
        mediaType: 'video',
        creatorUsername: 'fake.creator',
      }),
    ]);
    // saved after init and before the first status fetch
    const statusCalls = calls(STATUS, from);
    expect(statusCalls.length).toBe(2); // PROCESSING_DOWNLOAD, then PUBLISH_COMPLETE
    expect(fake.requests.indexOf(statusCalls[0] as never)).toBeGreaterThanOrEqual(requestsAtSave);
    expect(statusCalls[0]?.body).toEqual({ publish_id: publishId });
  });

  it('maps all nine options, keeping switches the creator disabled off', async () => {
    fake.setCreator({ duet_disabled: true });
    try {
      const from = fake.requests.length;
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        platformOptions: {
          tiktok: {
            tiktokPrivacy: 'PUBLIC_TO_EVERYONE',
            tiktokIsDraft: false,
            tiktokAllowComments: false,
            tiktokAllowDuet: true,
            tiktokAllowStitch: false,
            tiktokBrandOrganic: true,
            tiktokBrandContent: true,
            tiktokAutoAddMusic: true, // photos only: not sent for a video
            tiktokIsAigc: true,
          },
        },
      });
      expectPublished(await publisher().publish(h.request));
      expect(
        (calls(INIT, from)[0]?.body as { post_info?: unknown } | undefined)?.post_info,
      ).toEqual({
        title: h.request.post.content,
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: true,
        disable_duet: true, // creator disabled duets in the app
        disable_stitch: true,
        brand_content_toggle: true,
        brand_organic_toggle: true,
        is_aigc: true,
      });
    } finally {
      fake.setCreator({ duet_disabled: false });
    }
  });

  it('refuses a privacy level the creator does not offer, before any init', async () => {
    const from = fake.requests.length;
    const h = makeRequest({
      platform: 'tiktok',
      mediaUrls: [VIDEO],
      platformOptions: { tiktok: { tiktokPrivacy: 'FOLLOWER_OF_CREATOR' } },
    });
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'privacy_level_option_mismatch',
      retryable: false,
    });
    expect(calls(INIT, from)).toHaveLength(0);
  });

  it('defaults to the first option when the creator does not offer SELF_ONLY', async () => {
    fake.setCreator({ privacy_level_options: ['FOLLOWER_OF_CREATOR', 'PUBLIC_TO_EVERYONE'] });
    try {
      const from = fake.requests.length;
      const h = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
      expectPublished(await publisher().publish(h.request));
      const body = calls(INIT, from)[0]?.body as { post_info: { privacy_level: string } };
      expect(body.post_info.privacy_level).toBe('FOLLOWER_OF_CREATOR');
    } finally {
      fake.setCreator({
        privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      });
    }
  });

  it('posts photos through content/init with URLs rewritten through the photo proxy', async () => {
    const from = fake.requests.length;
    const content = 'Our new office, first light\nMore words in the description';
    const h = makeRequest({
      platform: 'tiktok',
      mediaUrls: PHOTOS,
      content,
      platformOptions: { tiktok: { tiktokAutoAddMusic: true, tiktokAllowComments: false } },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(outcome.platformUrl).toBe(
      `https://www.tiktok.com/@fake.creator/photo/${outcome.platformPostId}`,
    );
    expect(calls('/v2/post/publish/content/init/', from)[0]?.body).toEqual({
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: {
        title: 'Our new office, first light',
        description: content,
        privacy_level: 'SELF_ONLY',
        disable_comment: true,
        auto_add_music: true,
        brand_content_toggle: false,
        brand_organic_toggle: false,
      },
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: 0,
        photo_images: PHOTOS.map((url) => `${PROXY}?url=${encodeURIComponent(url)}`),
      },
    });
    expect(h.progress[0]).toMatchObject({ mediaType: 'photo' });
  });

  it('without a proxy, photos on an unverified domain fail with url_ownership_unverified', async () => {
    const h = makeRequest({ platform: 'tiktok', mediaUrls: PHOTOS });
    const outcome = await publisherFor(
      'tiktok',
      testConfig({ tiktok: { apiBaseUrl: fake.baseUrl, tokenBaseUrl: fake.baseUrl } }),
    ).publish(h.request);
    expect(outcome).toEqual({
      kind: 'failed',
      code: 'url_ownership_unverified',
      message: TIKTOK_ERRORS.url_ownership_unverified.message,
      retryable: false,
    });
  });

  it('sends a draft video to the inbox (source_info only) and ends at SEND_TO_USER_INBOX', async () => {
    const from = fake.requests.length;
    const h = makeRequest({
      platform: 'tiktok',
      mediaUrls: [VIDEO],
      platformOptions: { tiktok: { tiktokIsDraft: true } },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const publishId = fake.publishes.at(-1)?.publishId;
    expect(outcome).toEqual({ kind: 'published', platformPostId: publishId, platformUrl: null });
    expect(calls('/v2/post/publish/creator_info/query/', from)).toHaveLength(0);
    expect(calls(INIT, from)).toHaveLength(0);
    expect(calls('/v2/post/publish/inbox/video/init/', from)[0]?.body).toEqual({
      source_info: { source: 'PULL_FROM_URL', video_url: VIDEO },
    });
  });

  it('uploads draft photos with post_mode MEDIA_UPLOAD', async () => {
    const from = fake.requests.length;
    const h = makeRequest({
      platform: 'tiktok',
      mediaUrls: PHOTOS,
      platformOptions: { tiktok: { tiktokIsDraft: true } },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(outcome.platformUrl).toBeNull();
    const body = calls('/v2/post/publish/content/init/', from)[0]?.body as {
      post_mode: string;
      post_info: Record<string, unknown>;
    };
    expect(body.post_mode).toBe('MEDIA_UPLOAD');
    expect(body.post_info).not.toHaveProperty('privacy_level');
  });

  describe('errors keep the platform code and message, with our retry decision', () => {
    const cases: [TiktokErrorCode, string, boolean | 'wait'][] = [
      ['rate_limit_exceeded', INIT, 'wait'],
      ['internal_error', INIT, true],
      ['rate_limit_exceeded', STATUS, 'wait'],
      ['invalid_params', INIT, false],
      ['scope_not_authorized', INIT, false],
      ['spam_risk_too_many_posts', INIT, false],
      ['spam_risk_user_banned_from_posting', INIT, false],
      ['unaudited_client_can_only_post_to_private_accounts', INIT, false],
      ['duration_check_failed', INIT, false],
    ];
    it.each(cases)('%s on %s -> retryable %s', async (code, path, retryable) => {
      fake.script({ error: code, path });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] }).request,
      );
      const message = TIKTOK_ERRORS[code].message;
      if (retryable === 'wait') {
        // No Retry-After from TikTok: a one-minute window (+ up to 10 % jitter).
        expect(outcome).toMatchObject({ kind: 'throttled', code, message });
        const waitMs = outcome.kind === 'throttled' ? outcome.retryAt.getTime() - Date.now() : 0;
        expect(waitMs).toBeGreaterThan(55_000);
        expect(waitMs).toBeLessThanOrEqual(66_000);
      } else {
        expect(outcome).toEqual({ kind: 'failed', code, message, retryable });
      }
    });

    it('a dropped connection is a retryable network_error', async () => {
      fake.script({ drop: true, path: INIT });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] }).request,
      );
      expect(outcome).toMatchObject({ kind: 'failed', code: 'network_error', retryable: true });
    });

    it('init sent but unanswered (connection dropped): the intent stays, and a resume never sends it again', async () => {
      const inits = () => fake.requests.filter((r) => r.path === INIT).length;
      fake.script({ drop: true, path: INIT });
      const first = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
      expect(await publisher().publish(first.request)).toMatchObject({ code: 'network_error' });
      expect(first.intents).toEqual(['init']);
      expect(first.pendingIntent()?.step).toBe('init');
      const sent = inits();
      const outcome = await publisher().resume(afterCrash(first).request);
      expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
      expect(outcome.kind === 'failed' && outcome.message).toMatch(/Check the account/);
      expect(inits()).toBe(sent);
    });

    it('an init refused by TikTok ends its intent (nothing was created); a published one is ended by the progress', async () => {
      fake.script({ error: 'invalid_params', path: INIT });
      const refused = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
      await publisher().publish(refused.request);
      expect(refused.intents).toEqual(['init', null]);
      expect(refused.pendingIntent()).toBeNull();
      const ok = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
      expectPublished(await publisher().publish(ok.request));
      expect(ok.intents).toEqual(['init']);
      expect(ok.pendingIntent()).toBeNull();
    });

    it('FAILED status ends the target with fail_reason, not retryable', async () => {
      fake.script({ failPublish: 'video_pull_failed' });
      const outcome = await publisher().publish(
        makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] }).request,
      );
      expect(outcome).toMatchObject({
        kind: 'failed',
        code: 'video_pull_failed',
        retryable: false,
      });
    });
  });

  describe('expired tokens', () => {
    it('refreshes once through /v2/oauth/token/, stores the new tokens and retries the call', async () => {
      fake.expireAccessToken('act.expired-1');
      const from = fake.requests.length;
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        accessToken: 'act.expired-1',
        refreshToken: 'rft.valid-1',
      });
      expectPublished(await publisher().publish(h.request));
      const [token] = calls('/v2/oauth/token/', from);
      expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(token?.body).toEqual({
        client_key: 'ck',
        client_secret: 'cs',
        grant_type: 'refresh_token',
        refresh_token: 'rft.valid-1',
      });
      expect(h.tokens).toHaveLength(1);
      expect(h.tokens[0]?.accessToken).toMatch(/^act\.refreshed\./);
      expect(h.tokens[0]?.refreshToken).toMatch(/^rft\.refreshed\./); // rotated
      expect(h.tokens[0]?.expiresAt?.getTime()).toBeGreaterThan(Date.now());
      const [, retried] = calls('/v2/post/publish/creator_info/query/', from);
      expect(retried?.headers.authorization).toBe(`Bearer ${h.tokens[0]?.accessToken}`);
      expect(calls(INIT, from)[0]?.headers.authorization).toBe(
        `Bearer ${h.tokens[0]?.accessToken}`,
      );
    });

    it('a refused refresh (invalid_grant) ends with connection_expired', async () => {
      fake.expireAccessToken('act.expired-2');
      fake.revokeRefreshToken('rft.revoked-2');
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        accessToken: 'act.expired-2',
        refreshToken: 'rft.revoked-2',
      });
      const outcome = await publisher().publish(h.request);
      expect(outcome.kind).toBe('connection_expired');
      expect(outcome.kind === 'connection_expired' && outcome.message).toContain('invalid_grant');
      expect(h.tokens).toHaveLength(0);
    });

    it('without a refresh token the connection is expired, no token call', async () => {
      fake.expireAccessToken('act.expired-3');
      const from = fake.requests.length;
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        accessToken: 'act.expired-3',
        refreshToken: null,
      });
      expect((await publisher().publish(h.request)).kind).toBe('connection_expired');
      expect(calls('/v2/oauth/token/', from)).toHaveLength(0);
    });

    it('a token endpoint 5xx is a retryable failure, not an expired connection', async () => {
      fake.expireAccessToken('act.expired-4');
      fake.script({ tokenError: 'server_error', status: 503 });
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        accessToken: 'act.expired-4',
      });
      expect(await publisher().publish(h.request)).toMatchObject({
        kind: 'failed',
        code: 'server_error',
        retryable: true,
      });
    });
  });

  describe('pacing at the counted call', () => {
    const CREATOR = '/v2/post/publish/creator_info/query/';

    it('asks the pacer once, after the creator-info query and right before init (what TikTok counts)', async () => {
      const from = fake.requests.length;
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        countedMark: () => fake.requests.length,
      });
      expectPublished(await publisher().publish(h.request));
      expect(h.countedAt).toHaveLength(1);
      const mark = h.countedAt[0] ?? -1;
      expect(fake.requests[mark - 1]?.path).toBe(CREATOR);
      expect(fake.requests[mark]?.path).toBe(INIT);
      expect(calls(INIT, from)).toHaveLength(1);
    });

    it('a connection out of budget: no init, no intent, the deferral reaches the worker', async () => {
      const from = fake.requests.length;
      const wait = { until: new Date(Date.now() + 10_000), limit: { count: 6, windowMs: 60_000 } };
      const h = makeRequest({
        platform: 'tiktok',
        mediaUrls: [VIDEO],
        pace: async () => {
          throw new PaceDeferral(wait);
        },
      });
      await expect(publisher().publish(h.request)).rejects.toBeInstanceOf(PaceDeferral);
      expect(calls(CREATOR, from)).toHaveLength(1);
      expect(calls(INIT, from)).toHaveLength(0);
      expect(h.intents).toEqual([]);
      expect(h.progress).toEqual([]);
    });

    it('a resume that only polls a stored publish_id makes no counted call', async () => {
      const first = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
      expectPublished(await publisher().publish(first.request));
      const again = afterCrash(first);
      expectPublished(await publisher().resume(again.request));
      expect(again.countedAt).toEqual([]);
    });
  });

  describe('resume', () => {
    /** Publishes until the publish_id is stored, then "crashes" (the signal aborts). */
    async function crashAfterProgress(h: Harness) {
      const save = h.request.saveProgress;
      h.request.saveProgress = async (state) => {
        await save(state);
        h.controller.abort(new Error('worker crashed'));
      };
      await expect(publisher().publish(h.request)).rejects.toThrow();
    }

    it('with a stored publish_id polls only: no second init', async () => {
      const from = fake.requests.length;
      fake.script({ processingPolls: 3 });
      const first = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
      await crashAfterProgress(first);
      expect(first.progress).toHaveLength(1);

      const second = afterCrash(first);
      const outcome = expectPublished(await publisher().resume(second.request));
      expect(outcome.platformUrl).toContain('/video/');
      expect(calls(INIT, from)).toHaveLength(1);
      expect(calls('/v2/post/publish/creator_info/query/', from)).toHaveLength(1);
      expect(second.progress).toHaveLength(0);
    });

    it('without a publish_id publishes from scratch', async () => {
      const from = fake.requests.length;
      const h = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO], resumeState: null });
      expectPublished(await publisher().resume(h.request));
      expect(calls(INIT, from)).toHaveLength(1);
    });
  });

  it('past the poll bound the target fails with platform_timeout', async () => {
    fake.script({ processingPolls: 1_000_000 });
    const slow = publisherFor('tiktok', { ...config(), pollIntervalMs: 10, pollTimeoutMs: 100 });
    const outcome = await slow.publish(
      makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'platform_timeout', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/still not finished/);
  });

  it('an abort while polling throws (the worker hands the target back)', async () => {
    fake.script({ processingPolls: 1_000_000 });
    const h = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO] });
    const pending = publisher().publish(h.request);
    setTimeout(() => h.controller.abort(new Error('shutdown')), 50);
    await expect(pending).rejects.toThrow();
    expect(h.progress).toHaveLength(1);
  });
});
