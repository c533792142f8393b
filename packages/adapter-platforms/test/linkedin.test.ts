import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeCommentary } from '../src/linkedin/publisher.ts';
import { validateLinkedin } from '../src/linkedin/validate.ts';
import {
  afterCrash,
  expectPublished,
  type FakeLinkedin,
  LINKEDIN_ERRORS,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeLinkedin,
  startMediaServer,
  testConfig,
} from './helpers.ts';

const PART = 256 * 1024;

let fake: FakeLinkedin;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([
    startFakeLinkedin({ refreshTokens: true, videoPartBytes: PART, retiredVersions: ['202401'] }),
    startMediaServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const config = (apiVersion = '202510') =>
  testConfig({
    linkedin: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'linkedin-client-id',
      clientSecret: 'linkedin-client-secret',
      apiVersion,
      organizations: 'true',
    },
  });
const publisher = (apiVersion?: string) => publisherFor('linkedin', config(apiVersion));
const member = () => `urn:li:person:${fake.member.sub}`;
const ORG = 'urn:li:organization:2414183';
let unique = 0;
/** Distinct commentary per test (the fake refuses duplicates, as LinkedIn). */
const text = (label: string) => `${label} #${++unique}`;
const since = (from: number) => fake.requests.slice(from);

describe('linkedin publisher: text posts', () => {
  it('posts as the member with the versioned headers and returns the feed URL', async () => {
    const from = fake.requests.length;
    const content = text('Hello LinkedIn');
    const h = makeRequest({ platform: 'linkedin', content, externalId: member() });
    const outcome = expectPublished(await publisher().publish(h.request));
    const post = fake.posts.at(-1);
    expect(post?.author).toBe(member());
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: post?.urn,
      platformUrl: `https://www.linkedin.com/feed/update/${post?.urn}`,
    });
    const call = since(from).find((r) => r.path === '/rest/posts');
    expect(call?.headers.authorization).toBe('Bearer access-1');
    expect(call?.headers['linkedin-version']).toBe('202510');
    expect(call?.headers['x-restli-protocol-version']).toBe('2.0.0');
    expect(call?.body).toEqual({
      author: member(),
      commentary: content,
      visibility: 'PUBLIC',
      distribution: {
        feedDistribution: 'MAIN_FEED',
        targetEntities: [],
        thirdPartyDistributionChannels: [],
      },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    });
  });

  it('posts as an administered organization', async () => {
    const h = makeRequest({
      platform: 'linkedin',
      content: text('From the company'),
      externalId: ORG,
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(fake.posts.at(-1)?.author).toBe(ORG);
    expect(outcome.platformPostId).toMatch(/^urn:li:share:\d+$/);
  });

  it('an organization the member does not administer is a permanent 403 naming the permission', async () => {
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Not mine'),
      externalId: 'urn:li:organization:999',
    });
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'ACCESS_DENIED', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/w_organization_social/);
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/"serviceErrorCode":100/);
  });

  it('escapes the little-text reserved characters so the text shows literally', async () => {
    const raw = `${text('Escapes')} (a) [b] {c} <d> @e |f| ~g~ _h_ *i* \\j`;
    expect(escapeCommentary('(a) [b] {c} <d> @e |f ~g _h *i \\j #tag')).toBe(
      '\\(a\\) \\[b\\] \\{c\\} \\<d\\> \\@e \\|f \\~g \\_h \\*i \\\\j #tag',
    );
    const h = makeRequest({ platform: 'linkedin', content: raw, externalId: member() });
    expectPublished(await publisher().publish(h.request));
    expect(fake.posts.at(-1)?.commentary).toBe(escapeCommentary(raw));
  });

  it("a duplicate is failed duplicate_content, not retryable, with LinkedIn's message kept", async () => {
    const content = text('Same words');
    expectPublished(
      await publisher().publish(
        makeRequest({ platform: 'linkedin', content, externalId: member() }).request,
      ),
    );
    const first = fake.posts.at(-1);
    const outcome = await publisher().publish(
      makeRequest({ platform: 'linkedin', content, externalId: member() }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', code: 'duplicate_content', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toContain(
      `Content is a duplicate of ${first?.urn}`,
    );
  });

  it('a 5xx is retryable; a retired LinkedIn-Version is permanent', async () => {
    fake.script({ error: LINKEDIN_ERRORS.serverError, on: 'post' });
    const outcome = await publisher().publish(
      makeRequest({ platform: 'linkedin', content: text('Boom'), externalId: member() }).request,
    );
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'INTERNAL_SERVER_ERROR',
      retryable: true,
    });
    const retired = await publisher('202401').publish(
      makeRequest({ platform: 'linkedin', content: text('Old'), externalId: member() }).request,
    );
    expect(retired).toMatchObject({
      kind: 'failed',
      code: 'NONEXISTENT_VERSION',
      retryable: false,
    });
  });

  it('a network drop is retryable', async () => {
    fake.script({ drop: true, on: 'post' });
    const outcome = await publisher().publish(
      makeRequest({ platform: 'linkedin', content: text('Dropped'), externalId: member() }).request,
    );
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
  });
});

describe('linkedin publisher: tokens and limits', () => {
  it('401 without a refresh token ends as connection_expired', async () => {
    fake.script({ error: LINKEDIN_ERRORS.invalidToken, on: 'post' });
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Expired'),
      externalId: member(),
      refreshToken: null,
    });
    const outcome = await publisher().publish(h.request);
    expect(outcome.kind).toBe('connection_expired');
  });

  it('401 refreshes once with the stored refresh token, saves the tokens and posts', async () => {
    const consent = fake.oauth.authorize({
      clientId: 'linkedin-client-id',
      redirectUri: 'https://app.example/cb',
      state: 's',
      scope: 'openid profile w_member_social',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const code = new URL(consent.redirect).searchParams.get('code') ?? '';
    const granted = fake.oauth.exchangeCode({
      code,
      clientId: 'linkedin-client-id',
      clientSecret: 'linkedin-client-secret',
      redirectUri: 'https://app.example/cb',
    });
    if (!granted.ok || !granted.tokens.refreshToken) throw new Error('no tokens');
    fake.revokeAccessToken(granted.tokens.accessToken);
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Refreshed'),
      externalId: member(),
      accessToken: granted.tokens.accessToken,
      refreshToken: granted.tokens.refreshToken,
    });
    expectPublished(await publisher().publish(h.request));
    expect(h.tokens).toHaveLength(1);
    expect(h.tokens[0]?.accessToken).not.toBe(granted.tokens.accessToken);
    expect(h.tokens[0]?.refreshToken).toBe(granted.tokens.refreshToken);
  });

  it('401 with a refresh token LinkedIn refuses ends as connection_expired', async () => {
    fake.script({ error: LINKEDIN_ERRORS.revokedToken, on: 'post' });
    const outcome = await publisher().publish(
      makeRequest({ platform: 'linkedin', content: text('Refused'), externalId: member() }).request,
    );
    expect(outcome.kind).toBe('connection_expired');
  });

  it('429 with Retry-After is throttled until then, without an attempt', async () => {
    fake.script({ error: LINKEDIN_ERRORS.throttled, on: 'post', retryAfterSeconds: 120 });
    const before = Date.now();
    const outcome = await publisher().publish(
      makeRequest({ platform: 'linkedin', content: text('Slow'), externalId: member() }).request,
    );
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'TOO_MANY_REQUESTS' });
    const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
    expect(at).toBeGreaterThanOrEqual(before + 120_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 133_000);
  });

  it('the daily limit (429 without Retry-After) waits about an hour', async () => {
    fake.dailyPostLimit = fake.posts.length;
    try {
      const before = Date.now();
      const outcome = await publisher().publish(
        makeRequest({ platform: 'linkedin', content: text('Too many'), externalId: member() })
          .request,
      );
      expect(outcome.kind).toBe('throttled');
      const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
      expect(at).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(outcome.kind === 'throttled' && outcome.message).toMatch(/MEMBER DAY/);
    } finally {
      fake.dailyPostLimit = undefined;
    }
  });
});

describe('linkedin publisher: images', () => {
  it('one image: initializeUpload, the bytes streamed to the upload URL, content.media', async () => {
    const uploadsBefore = fake.uploads.length;
    const url = media.url('photo.jpg', 70_001);
    const h = makeRequest({
      platform: 'linkedin',
      content: text('One photo'),
      externalId: ORG,
      mediaUrls: [url],
    });
    expectPublished(await publisher().publish(h.request));
    const image = fake.images.at(-1);
    expect(image).toMatchObject({ owner: ORG, uploadedBytes: 70_001, patternOk: true });
    expect(fake.uploads.slice(uploadsBefore)).toEqual([
      { kind: 'image', urn: image?.urn, bytes: 70_001 },
    ]);
    expect(fake.posts.at(-1)?.body.content).toEqual({ media: { id: image?.urn } });
    expect(h.progress.at(-1)).toMatchObject({ images: [image?.urn] });
  });

  it('three images make a multiImage post', async () => {
    const urls = [1, 2, 3].map((n) => media.url(`p${n}.png`, 10_000 * n));
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Three photos'),
      externalId: member(),
      mediaUrls: urls,
    });
    expectPublished(await publisher().publish(h.request));
    const ids = fake.images.slice(-3).map((image) => image.urn);
    expect(fake.images.slice(-3).map((i) => i.uploadedBytes)).toEqual([10_000, 20_000, 30_000]);
    expect(fake.posts.at(-1)?.body.content).toEqual({
      multiImage: { images: ids.map((id) => ({ id })) },
    });
  });

  it('a resume reuses the uploaded images: no second upload, one post', async () => {
    const urls = [1, 2, 3].map((n) => media.url(`r${n}.jpg`, 5_000 + n));
    fake.script({ error: LINKEDIN_ERRORS.serverError, on: 'post' });
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Resume photos'),
      externalId: member(),
      mediaUrls: urls,
    });
    const uploadsBefore = fake.uploads.length;
    const initsBefore = fake.images.length;
    const failed = await publisher().publish(h.request);
    expect(failed).toMatchObject({ kind: 'failed', retryable: true });
    expect(fake.uploads.length - uploadsBefore).toBe(3);
    const postsBefore = fake.posts.length;
    const resumed = afterCrash(h);
    expectPublished(await publisher().resume(resumed.request));
    expect(fake.uploads.length - uploadsBefore).toBe(3);
    expect(fake.images.length - initsBefore).toBe(3);
    expect(fake.posts.length).toBe(postsBefore + 1);
  });

  it('a post whose answer was lost, without the permission to read posts: outcome_unknown, never sent again', async () => {
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Lost answer'),
      externalId: member(),
    });
    expectPublished(await publisher().publish(h.request));
    // The worker died before recording the answer: the intent is still there.
    expect(h.pendingIntent()?.step).toBe('create_post');
    const postsBefore = fake.posts.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(outcome.kind === 'failed' && outcome.message).toMatch(/r_member_social not granted/);
    expect(fake.posts.length).toBe(postsBefore);
  });
});

describe('linkedin publisher: a lost answer, with the permission to read posts', () => {
  let reader: FakeLinkedin;
  beforeAll(async () => {
    reader = await startFakeLinkedin({
      authorizedScopes: ['openid', 'profile', 'w_member_social', 'r_member_social'],
    });
  });
  afterAll(() => reader.close());
  const readerPublisher = () =>
    publisherFor(
      'linkedin',
      testConfig({
        linkedin: {
          apiBaseUrl: reader.baseUrl,
          apiVersion: '202510',
          organizations: 'false',
        },
      }),
    );
  const author = () => `urn:li:person:${reader.member.sub}`;

  it('finds the post the earlier run created among the latest ones: published, not sent again', async () => {
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Found (it) @once'),
      externalId: author(),
    });
    const first = expectPublished(await readerPublisher().publish(h.request));
    const again = expectPublished(await readerPublisher().resume(afterCrash(h).request));
    expect(again).toEqual(first);
    expect(reader.posts).toHaveLength(1);
  });

  it('when the post is not there, the request never arrived: it is sent, once', async () => {
    reader.script({ drop: true, on: 'post' });
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Never arrived'),
      externalId: author(),
    });
    expect(await readerPublisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    expect(h.pendingIntent()?.step).toBe('create_post');
    const before = reader.posts.length;
    expectPublished(await readerPublisher().resume(afterCrash(h).request));
    expect(reader.posts.length).toBe(before + 1);
  });
});

describe('linkedin publisher: video', () => {
  it('uploads the parts by range, finalizes with the ETags, waits for AVAILABLE, then posts', async () => {
    const size = 2 * PART + 12_345; // three parts
    fake.processingPolls = 3;
    try {
      const from = fake.requests.length;
      const uploadsBefore = fake.uploads.length;
      const h = makeRequest({
        platform: 'linkedin',
        content: text('A video'),
        externalId: ORG,
        mediaUrls: [media.url('clip.mp4', size)],
      });
      expectPublished(await publisher().publish(h.request));
      const video = fake.videos.at(-1);
      expect(video).toMatchObject({
        owner: ORG,
        fileSizeBytes: size,
        status: 'AVAILABLE',
        polls: 4,
        patternOk: true,
      });
      expect(video?.parts).toHaveLength(3);
      expect(fake.uploads.slice(uploadsBefore).map((u) => u.bytes)).toEqual([PART, PART, 12_345]);
      const init = since(from).find((r) => r.query.action === 'initializeUpload');
      expect(init?.body).toEqual({
        initializeUploadRequest: {
          owner: ORG,
          fileSizeBytes: size,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      });
      const finalize = since(from).find((r) => r.query.action === 'finalizeUpload');
      expect(finalize?.body).toEqual({
        finalizeUploadRequest: {
          video: video?.urn,
          uploadToken: video?.uploadToken,
          uploadedPartIds: video?.parts.map((p) => p.etag),
        },
      });
      expect(fake.posts.at(-1)?.body.content).toEqual({ media: { id: video?.urn } });
    } finally {
      fake.processingPolls = 1;
    }
  });

  it('streams the right range even from a media server that ignores Range', async () => {
    const size = PART + 999;
    media.script({ ignoreRange: true, times: 2 });
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Ignored ranges'),
      externalId: member(),
      mediaUrls: [media.url('whole.mp4', size)],
    });
    expectPublished(await publisher().publish(h.request));
    expect(fake.videos.at(-1)?.patternOk).toBe(true);
  });

  it('a resume after a failed finalize sends no part again', async () => {
    fake.script({ error: LINKEDIN_ERRORS.serverError, on: 'videoFinalize' });
    const h = makeRequest({
      platform: 'linkedin',
      content: text('Resume video'),
      externalId: member(),
      mediaUrls: [media.url('resume.mp4', PART + 10)],
    });
    const uploadsBefore = fake.uploads.length;
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    expect(fake.uploads.length - uploadsBefore).toBe(2);
    const videosBefore = fake.videos.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.uploads.length - uploadsBefore).toBe(2);
    expect(fake.videos.length).toBe(videosBefore);
  });
});

describe('linkedin validate', () => {
  const draft = (mediaUrls: string[]) => ({ content: 'x', mediaUrls, platformOptions: {} });
  it('refuses mixed media, several videos and more than 20 photos', () => {
    expect(validateLinkedin(draft(['https://a/x.jpg', 'https://a/y.mp4']))).toEqual([
      { field: 'media_urls', message: 'linkedin cannot mix photos and videos in one post' },
    ]);
    expect(validateLinkedin(draft(['https://a/x.mp4', 'https://a/y.mp4']))[0]?.message).toMatch(
      /one video/,
    );
    const photos = Array.from({ length: 21 }, (_, i) => `https://a/${i}.jpg`);
    expect(validateLinkedin(draft(photos))[0]?.message).toMatch(/at most 20/);
    expect(validateLinkedin(draft(photos.slice(0, 20)))).toEqual([]);
    expect(publisherFor('linkedin', config()).validate(draft(['https://a/x.mp4']))).toEqual([]);
  });
});
