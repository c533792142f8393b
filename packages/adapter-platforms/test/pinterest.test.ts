// The Pinterest publisher over real HTTP against the local fake (docs/platforms.md#pinterest):
// image, carousel and video Pins, the board it needs, throttling, token renewal, and a lost
// answer found on the board instead of a second Pin.
import type { PlatformOptions } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinterestRetryAt, pinterestTime } from '../src/pinterest/api.ts';
import { validatePinterestOptions } from '../src/pinterest/options.ts';
import { validatePinterest } from '../src/pinterest/validate.ts';
import {
  afterCrash,
  expectPublished,
  type FakePinterest,
  type MediaServer,
  makeRequest,
  PINTEREST_BOARD_ID,
  PINTEREST_ERRORS,
  publisherFor,
  startFakePinterest,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakePinterest;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([
    startFakePinterest({ processingPolls: 2 }),
    startMediaServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

/** testConfig has no section for Pinterest: it is added beside the others. */
function config(overrides: Record<string, string> = {}) {
  const base = testConfig();
  return {
    ...base,
    settings: {
      ...base.settings,
      pinterest: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        authBaseUrl: fake.baseUrl,
        clientId: 'pinterest-client-id',
        clientSecret: 'pinterest-client-secret',
        ...overrides,
      },
    },
  };
}
const publisher = () => publisherFor('pinterest', config());
const board = { pinterest: { board_id: PINTEREST_BOARD_ID } };
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const since = (from: number) => fake.requests.slice(from);
const pinRequest = (input: {
  content?: string;
  mediaUrls: string[];
  options?: Record<string, unknown>;
  refreshToken?: string | null;
  accessToken?: string;
}) =>
  makeRequest({
    platform: 'pinterest',
    content: input.content ?? text('A Pin'),
    mediaUrls: input.mediaUrls,
    platformOptions: { pinterest: { board_id: PINTEREST_BOARD_ID, ...input.options } },
    externalId: fake.user.id,
    ...(input.refreshToken === undefined ? {} : { refreshToken: input.refreshToken }),
    ...(input.accessToken === undefined ? {} : { accessToken: input.accessToken }),
  });

describe('pinterest publisher: image Pins', () => {
  it('one image: POST /v5/pins with the board, title, link, alt text and image_url; the Pin URL', async () => {
    const from = fake.requests.length;
    const image = media.url('pin.jpg', 2_000);
    const content = text('A recipe worth saving');
    const h = pinRequest({
      content,
      mediaUrls: [image],
      options: { title: 'Bread', link: 'https://example.com/bread', alt_text: 'A loaf' },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const pin = fake.pins.at(-1);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: pin?.id,
      platformUrl: `https://www.pinterest.com/pin/${pin?.id}/`,
    });
    const call = since(from).find((r) => r.path === '/v5/pins');
    expect(call?.headers.authorization).toBe('Bearer access-1');
    expect(call?.body).toEqual({
      board_id: PINTEREST_BOARD_ID,
      description: content,
      title: 'Bread',
      link: 'https://example.com/bread',
      alt_text: 'A loaf',
      media_source: { source_type: 'image_url', url: image },
    });
    // The image URL passed our guard (one HEAD on the media server), the bytes went nowhere.
    expect(h.intents).toEqual(['create_pin']);
    expect(h.countedAt).toHaveLength(1);
  });

  it('several images make one carousel Pin (multiple_image_urls)', async () => {
    const urls = [1, 2, 3].map((n) => media.url(`carousel-${n}.png`, 1_000));
    const h = pinRequest({ mediaUrls: urls });
    expectPublished(await publisher().publish(h.request));
    expect(fake.pins.at(-1)?.media_source).toEqual({
      source_type: 'multiple_image_urls',
      items: urls.map((url) => ({ url })),
    });
  });

  it('an image URL the SSRF guard refuses is never handed to Pinterest', async () => {
    const pinsBefore = fake.pins.length;
    const h = pinRequest({ mediaUrls: ['http://user:secret@127.0.0.1/a.jpg'] });
    expect(await publisher().publish(h.request)).toMatchObject({
      kind: 'failed',
      code: 'media_url_refused',
      retryable: false,
    });
    expect(fake.pins.length).toBe(pinsBefore);
  });

  it('without board_id the publish fails at once, naming it', async () => {
    const h = makeRequest({
      platform: 'pinterest',
      content: 'no board',
      mediaUrls: [media.url('nob.jpg', 100)],
    });
    expect(await publisher().publish(h.request)).toMatchObject({
      kind: 'failed',
      code: 'invalid_params',
      message: expect.stringContaining('board_id'),
      retryable: false,
    });
  });

  it('an unknown board is a permanent failure with Pinterest code kept', async () => {
    const h = makeRequest({
      platform: 'pinterest',
      content: text('Elsewhere'),
      mediaUrls: [media.url('else.jpg', 100)],
      platformOptions: { pinterest: { board_id: '42' } },
    });
    expect(await publisher().publish(h.request)).toMatchObject({
      kind: 'failed',
      code: 'pinterest_40',
      message: expect.stringContaining('Board not found'),
      retryable: false,
    });
  });

  it('a 5xx is retryable, and clears the intent (nothing was created)', async () => {
    fake.script({ error: PINTEREST_ERRORS.serverError, on: 'pin' });
    const first = pinRequest({ mediaUrls: [media.url('e.jpg', 100)] });
    expect(await publisher().publish(first.request)).toMatchObject({
      kind: 'failed',
      code: 'pinterest_3',
      retryable: true,
    });
    // An error answer proves nothing was created: the intent is cleared.
    expect(first.pendingIntent()).toBeNull();
  });
});

describe('pinterest publisher: throttling and tokens', () => {
  it('429 with Retry-After is throttled until then, without an attempt', async () => {
    fake.script({ error: PINTEREST_ERRORS.rateLimited, on: 'pin', retryAfterSeconds: 90 });
    const before = Date.now();
    const outcome = await publisher().publish(
      pinRequest({ mediaUrls: [media.url('slow.jpg', 100)] }).request,
    );
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'pinterest_8' });
    const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
    expect(at).toBeGreaterThanOrEqual(before + 90_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 100_000);
  });

  it('429 without Retry-After waits for X-RateLimit-Reset (seconds until the window resets)', async () => {
    fake.pinLimit = fake.pins.length;
    try {
      const before = Date.now();
      const outcome = await publisher().publish(
        pinRequest({ mediaUrls: [media.url('limit.jpg', 100)] }).request,
      );
      expect(outcome.kind).toBe('throttled');
      const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
      expect(at).toBeGreaterThanOrEqual(before + 1_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 67_000);
    } finally {
      fake.pinLimit = undefined;
    }
  });

  it('401 without a refresh token ends as connection_expired', async () => {
    fake.script({ error: PINTEREST_ERRORS.authenticationFailed, on: 'pin' });
    const outcome = await publisher().publish(
      pinRequest({ mediaUrls: [media.url('exp.jpg', 100)], refreshToken: null }).request,
    );
    expect(outcome.kind).toBe('connection_expired');
  });

  it('an expired token is renewed once (HTTP Basic, refresh_token grant), saved, and the Pin made', async () => {
    const consent = fake.oauth.authorize({
      clientId: 'pinterest-client-id',
      redirectUri: 'https://app.example/cb',
      state: 's',
      scope: 'boards:read,pins:write',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const code = new URL(consent.redirect).searchParams.get('code') ?? '';
    const granted = fake.oauth.exchangeCode({
      code,
      clientId: 'pinterest-client-id',
      clientSecret: 'pinterest-client-secret',
      redirectUri: 'https://app.example/cb',
    });
    if (!granted.ok || !granted.tokens.refreshToken) throw new Error('no tokens');
    fake.expireAccessToken(granted.tokens.accessToken);
    const from = fake.requests.length;
    const h = pinRequest({
      mediaUrls: [media.url('renew.jpg', 100)],
      accessToken: granted.tokens.accessToken,
      refreshToken: granted.tokens.refreshToken,
    });
    expectPublished(await publisher().publish(h.request));
    expect(h.tokens).toHaveLength(1);
    expect(h.tokens[0]?.accessToken).not.toBe(granted.tokens.accessToken);
    const renewal = since(from).find((r) => r.path === '/v5/oauth/token');
    expect(renewal?.headers.authorization).toBe(
      `Basic ${Buffer.from('pinterest-client-id:pinterest-client-secret').toString('base64')}`,
    );
    expect(renewal?.body).toEqual({
      grant_type: 'refresh_token',
      refresh_token: granted.tokens.refreshToken,
    });
  });

  it('a renewal Pinterest refuses ends as connection_expired', async () => {
    fake.script({ error: PINTEREST_ERRORS.authenticationFailed, on: 'pin' });
    const outcome = await publisher().publish(
      pinRequest({ mediaUrls: [media.url('refused.jpg', 100)], refreshToken: 'unknown-refresh' })
        .request,
    );
    expect(outcome.kind).toBe('connection_expired');
  });
});

describe('pinterest publisher: video Pins', () => {
  it('registers the upload, streams the bytes as a form (parameters, then file), polls, then pins the video', async () => {
    const from = fake.requests.length;
    const video = media.url('clip.mp4', 300_000);
    const cover = media.url('cover.jpg', 500);
    const h = pinRequest({ mediaUrls: [video], options: { cover_image_url: cover } });
    const outcome = expectPublished(await publisher().publish(h.request));
    const pin = fake.pins.at(-1);
    expect(outcome.platformPostId).toBe(pin?.id);
    const mediaId = String(pin?.media_source.media_id);
    expect(pin?.media_source).toEqual({
      source_type: 'video_id',
      media_id: mediaId,
      cover_image_url: cover,
    });
    const uploaded = fake.media.get(mediaId);
    expect(uploaded).toMatchObject({ status: 'succeeded', bytes: 300_000, patternOk: true });
    const seen = since(from);
    expect(seen.find((r) => r.path === '/v5/media')?.body).toEqual({ media_type: 'video' });
    const upload = seen.find((r) => r.path.startsWith('/fake-s3/'));
    // The storage URL gets no token; the body was sized, not buffered by us.
    expect(upload?.headers.authorization).toBeUndefined();
    expect(Number(upload?.headers['content-length'])).toBeGreaterThan(300_000);
    expect(seen.filter((r) => r.path === `/v5/media/${mediaId}`).length).toBeGreaterThanOrEqual(3);
    // Stored once the bytes were there: a resume polls this media instead of uploading again.
    expect(h.progress).toEqual([{ video: { mediaId, pollStartedAt: expect.any(Number) } }]);
  });

  it('without a cover image the first frame is the cover', async () => {
    expectPublished(
      await publisher().publish(pinRequest({ mediaUrls: [media.url('frame.mp4', 5_000)] }).request),
    );
    expect(fake.pins.at(-1)?.media_source).toMatchObject({
      source_type: 'video_id',
      cover_image_key_frame_time: 0,
    });
  });

  it('a resume after the upload polls the stored media: no second upload, one Pin', async () => {
    fake.script({ drop: true, on: 'mediaStatus' });
    const h = pinRequest({ mediaUrls: [media.url('resume.mp4', 50_000)] });
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    expect(h.progress).toHaveLength(1);
    const registrations = fake.requests.filter((r) => r.path === '/v5/media').length;
    const pinsBefore = fake.pins.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.requests.filter((r) => r.path === '/v5/media').length).toBe(registrations);
    expect(fake.pins.length).toBe(pinsBefore + 1);
  });

  it('a video Pinterest cannot process fails permanently', async () => {
    fake.failNextVideo();
    const outcome = await publisher().publish(
      pinRequest({ mediaUrls: [media.url('broken.mp4', 10_000)] }).request,
    );
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'video_processing_failed',
      retryable: false,
    });
  });
});

describe('pinterest publisher: never twice', () => {
  it('a Pin whose answer was dropped is found on the board: published as that Pin, not sent again', async () => {
    fake.script({ dropAfterCreate: true });
    const h = pinRequest({ mediaUrls: [media.url('dropped.jpg', 100)] });
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', code: 'network_error', retryable: true });
    expect(h.pendingIntent()?.step).toBe('create_pin');
    const created = fake.pins.at(-1);
    const pinsBefore = fake.pins.length;
    const again = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(again.platformPostId).toBe(created?.id);
    expect(fake.pins.length).toBe(pinsBefore);
    expect(fake.requests.at(-1)?.path).toBe(`/v5/boards/${PINTEREST_BOARD_ID}/pins`);
  });

  it('when the Pin is not on the board, the request never arrived: it is sent, once', async () => {
    fake.script({ drop: true, on: 'pin' });
    const h = pinRequest({ mediaUrls: [media.url('never.jpg', 100)] });
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    expect(h.pendingIntent()?.step).toBe('create_pin');
    const before = fake.pins.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.pins.length).toBe(before + 1);
  });

  it('when the board cannot be read, the outcome stays unknown and nothing is sent', async () => {
    const h = pinRequest({ mediaUrls: [media.url('unknown.jpg', 100)] });
    expectPublished(await publisher().publish(h.request));
    fake.script({ error: PINTEREST_ERRORS.forbidden, on: 'boardPins' });
    const before = fake.pins.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(fake.pins.length).toBe(before);
  });
});

describe('pinterest rules', () => {
  const draft = (mediaUrls: string[], platformOptions: PlatformOptions = board) => ({
    content: 'x',
    mediaUrls,
    platformOptions,
  });

  it('a post without board_id is refused, naming the field', () => {
    expect(validatePinterest(draft(['https://cdn.example/a.jpg'], {}))).toEqual([
      {
        field: 'platform_options.pinterest.board_id',
        message: expect.stringContaining('required'),
      },
    ]);
    expect(validatePinterest(draft(['https://cdn.example/a.jpg']))).toEqual([]);
  });

  it('one video or 1 to 5 images, never both', () => {
    const images = (n: number) => Array.from({ length: n }, (_, i) => `https://c.example/${i}.jpg`);
    expect(validatePinterest(draft(images(5)))).toEqual([]);
    expect(validatePinterest(draft(images(6)))).toHaveLength(1);
    expect(
      validatePinterest(draft(['https://c.example/a.mp4', 'https://c.example/b.jpg'])),
    ).toHaveLength(1);
  });

  it('options: board id digits, title 100, alt text 500, http(s) links, nothing unknown', () => {
    expect(validatePinterestOptions({ board_id: PINTEREST_BOARD_ID, title: 'ok' })).toEqual([]);
    const problems = validatePinterestOptions({
      board_id: 'my board',
      title: 't'.repeat(101),
      alt_text: 'a'.repeat(501),
      link: 'javascript:alert(1)',
      pinned: true,
    });
    expect(problems.map((p) => p.field).sort()).toEqual([
      'platform_options.pinterest.alt_text',
      'platform_options.pinterest.board_id',
      'platform_options.pinterest.link',
      'platform_options.pinterest.pinned',
      'platform_options.pinterest.title',
    ]);
  });
});

describe('pinterest wire details', () => {
  const now = Date.UTC(2026, 10, 25, 12, 0, 0);

  it('X-RateLimit-Reset is seconds to the reset, or an epoch time when that large; Retry-After wins', () => {
    const wait = (headers: Record<string, string>) =>
      pinterestRetryAt(headers, now).getTime() - now;
    expect(wait({ 'x-ratelimit-reset': '30' })).toBeGreaterThanOrEqual(30_000);
    expect(wait({ 'x-ratelimit-reset': '30' })).toBeLessThanOrEqual(33_000);
    expect(wait({ 'x-ratelimit-reset': String(now / 1000 + 120) })).toBeGreaterThanOrEqual(120_000);
    expect(wait({ 'x-ratelimit-reset': String(now / 1000 + 120) })).toBeLessThanOrEqual(132_000);
    expect(wait({ 'retry-after': '5', 'x-ratelimit-reset': '30' })).toBeLessThanOrEqual(5_500);
    expect(wait({})).toBeGreaterThanOrEqual(60_000);
  });

  it('created_at without a zone is UTC; nothing readable is 0', () => {
    expect(pinterestTime('2026-11-25T12:00:00')).toBe(now);
    expect(pinterestTime('2026-11-25T13:00:00+01:00')).toBe(now);
    expect(pinterestTime(undefined)).toBe(0);
    expect(pinterestTime('soon')).toBe(0);
  });
});
