// The Google Business Profile publisher over real HTTP against the local fake
// (docs/platforms.md#google-business-profile): standard local posts with a photo and a button,
// the checks at create, Google's refusals and 429, token renewal, and a lost answer found among
// the location's posts instead of a second post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateGoogleBusinessOptions } from '../src/google-business/options.ts';
import { parentOf } from '../src/google-business/publisher.ts';
import { validateGoogleBusiness } from '../src/google-business/validate.ts';
import {
  afterCrash,
  expectPublished,
  type FakeGoogleBusiness,
  GOOGLE_BUSINESS_ERRORS,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeGoogleBusiness,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeGoogleBusiness;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeGoogleBusiness(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const ACCOUNT = 'accounts/1000000000000000001';
const LOCATION = 'locations/2000000000000000001';
const PARENT = `${ACCOUNT}/${LOCATION}`;

function config() {
  const base = testConfig();
  const hosts = {
    apiBaseUrl: fake.baseUrl,
    tokenBaseUrl: fake.baseUrl,
    authBaseUrl: fake.baseUrl,
    accountsBaseUrl: fake.baseUrl,
    locationsBaseUrl: fake.baseUrl,
  };
  return {
    ...base,
    settings: {
      ...base.settings,
      google_business: {
        ...hosts,
        clientId: 'google-business-client-id',
        clientSecret: 'google-business-client-secret',
      },
    },
  };
}
const publisher = () => publisherFor('google_business', config());
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const since = (from: number) => fake.requests.slice(from);
const creates = (from: number) =>
  since(from).filter((r) => r.method === 'POST' && r.path.endsWith('/localPosts'));
const postRequest = (input: {
  content?: string;
  mediaUrls?: string[];
  options?: Record<string, unknown>;
  refreshToken?: string | null;
  accessToken?: string;
  externalId?: string;
  platformData?: Record<string, string> | null;
}) =>
  makeRequest({
    platform: 'google_business',
    content: input.content ?? text('Fresh bread today'),
    mediaUrls: input.mediaUrls ?? [],
    platformOptions: input.options ? { google_business: input.options } : {},
    externalId: input.externalId ?? LOCATION,
    platformData: input.platformData === undefined ? { account: ACCOUNT } : input.platformData,
    ...(input.refreshToken === undefined ? {} : { refreshToken: input.refreshToken }),
    ...(input.accessToken === undefined ? {} : { accessToken: input.accessToken }),
  });

describe('google_business publisher: posts', () => {
  it('a photo post with a button: the local post body, its name and searchUrl', async () => {
    const from = fake.requests.length;
    const photo = media.url('croissant.jpg', 1_000);
    const content = text('Croissants are back');
    const h = postRequest({
      content,
      mediaUrls: [photo],
      options: {
        call_to_action: { action_type: 'ORDER', url: 'https://bakery.example/order' },
        language_code: 'fr-CA',
      },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const created = fake.posts.at(-1);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: created?.name,
      platformUrl: created?.searchUrl,
    });
    expect(created?.name).toMatch(new RegExp(`^${PARENT}/localPosts/\\d+$`));
    const [create] = creates(from);
    expect(create?.path).toBe(`/v4/${PARENT}/localPosts`);
    expect(create?.headers.authorization).toBe('Bearer access-1');
    expect(create?.body).toEqual({
      languageCode: 'fr-CA',
      summary: content,
      topicType: 'STANDARD',
      callToAction: { actionType: 'ORDER', url: 'https://bakery.example/order' },
      media: [{ mediaFormat: 'PHOTO', sourceUrl: photo }],
    });
    expect(h.intents).toEqual(['create_local_post']);
    expect(h.countedAt).toHaveLength(1);
  });

  it('text only, default language; CALL carries no url', async () => {
    const from = fake.requests.length;
    expectPublished(
      await publisher().publish(
        postRequest({ options: { call_to_action: { action_type: 'CALL' } } }).request,
      ),
    );
    expect(creates(from)[0]?.body).toMatchObject({
      languageCode: 'en',
      callToAction: { actionType: 'CALL' },
    });
    expect(creates(from)[0]?.body).not.toHaveProperty('media');
  });

  it('a connection brought with the whole path as its external id needs no account', () => {
    const request = postRequest({ externalId: PARENT, platformData: null }).request;
    expect(parentOf(request.connection)).toBe(PARENT);
    const bare = postRequest({ platformData: null }).request;
    expect(() => parentOf(bare.connection)).toThrow(/connect it again/);
  });
});

describe('google_business publisher: refusals', () => {
  it('Google’s error object: its status as the code, 4xx final, 5xx retryable', async () => {
    expect(
      await publisher().publish(postRequest({ content: 'x'.repeat(1_501) }).request),
    ).toMatchObject({ kind: 'failed', code: 'INVALID_ARGUMENT', retryable: false });
    fake.script({ error: GOOGLE_BUSINESS_ERRORS.permissionDenied, on: 'createPost' });
    expect(await publisher().publish(postRequest({}).request)).toMatchObject({
      code: 'PERMISSION_DENIED',
      retryable: false,
      message: expect.stringContaining('must still manage the location'),
    });
    fake.script({ error: GOOGLE_BUSINESS_ERRORS.unavailable, on: 'createPost' });
    expect(await publisher().publish(postRequest({}).request)).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
    });
    const wrong = postRequest({ platformData: { account: 'accounts/999' } });
    expect(await publisher().publish(wrong.request)).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('429 RESOURCE_EXHAUSTED is throttled (Retry-After, else a minute)', async () => {
    fake.script({
      error: GOOGLE_BUSINESS_ERRORS.resourceExhausted,
      on: 'createPost',
      retryAfterSeconds: 30,
    });
    const before = Date.now();
    const outcome = await publisher().publish(postRequest({}).request);
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'RESOURCE_EXHAUSTED' });
    const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
    expect(at).toBeGreaterThanOrEqual(before + 30_000);
    fake.postLimit = fake.posts.length;
    try {
      const second = await publisher().publish(postRequest({}).request);
      const wait = second.kind === 'throttled' ? second.retryAt.getTime() - Date.now() : 0;
      expect(wait).toBeGreaterThan(55_000);
      expect(wait).toBeLessThan(67_000);
    } finally {
      fake.postLimit = undefined;
    }
  });

  it('a post Google rejects is a final failure naming it', async () => {
    fake.rejectNextPost();
    expect(await publisher().publish(postRequest({}).request)).toMatchObject({
      kind: 'failed',
      code: 'post_rejected',
      retryable: false,
    });
  });

  it('an expired token is renewed once and the post made; a refused renewal expires', async () => {
    const consent = fake.oauth.authorize({
      clientId: 'google-business-client-id',
      redirectUri: 'https://app.example/cb',
      state: 's',
      scope: 'https://www.googleapis.com/auth/business.manage',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const code = new URL(consent.redirect).searchParams.get('code') ?? '';
    const granted = fake.oauth.exchangeCode({
      code,
      clientId: 'google-business-client-id',
      clientSecret: 'google-business-client-secret',
      redirectUri: 'https://app.example/cb',
    });
    if (!granted.ok || !granted.tokens.refreshToken) throw new Error('no tokens');
    fake.expireAccessToken(granted.tokens.accessToken);
    const h = postRequest({
      accessToken: granted.tokens.accessToken,
      refreshToken: granted.tokens.refreshToken,
    });
    expectPublished(await publisher().publish(h.request));
    expect(h.tokens).toHaveLength(1);
    const refused = await publisher().publish(
      postRequest({ accessToken: granted.tokens.accessToken, refreshToken: 'unknown' }).request,
    );
    expect(refused.kind).toBe('connection_expired');
  });
});

describe('google_business publisher: never twice', () => {
  it('a post whose answer was dropped is found among the location’s posts: not sent again', async () => {
    fake.script({ dropAfterCreate: true });
    const h = postRequest({});
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', code: 'network_error', retryable: true });
    expect(h.pendingIntent()?.step).toBe('create_local_post');
    const created = fake.posts.at(-1);
    const count = fake.posts.length;
    const again = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(again).toMatchObject({ platformPostId: created?.name, platformUrl: created?.searchUrl });
    expect(fake.posts.length).toBe(count);
    const last = fake.requests.at(-1);
    expect(`${last?.method} ${last?.path}`).toBe(`GET /v4/${PARENT}/localPosts`);
  });

  it('when nothing matches, the request never arrived: it is sent, once', async () => {
    fake.script({ drop: true, on: 'createPost' });
    const h = postRequest({});
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    const before = fake.posts.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.length).toBe(before + 1);
  });

  it('when the posts cannot be read, the outcome stays unknown and nothing is sent', async () => {
    const h = postRequest({});
    expectPublished(await publisher().publish(h.request));
    fake.script({ error: GOOGLE_BUSINESS_ERRORS.permissionDenied, on: 'listPosts' });
    const before = fake.posts.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(fake.posts.length).toBe(before);
  });
});

describe('google_business rules', () => {
  it('at most one photo', () => {
    const draft = (mediaUrls: string[]) => ({ content: 'x', mediaUrls, platformOptions: {} });
    expect(validateGoogleBusiness(draft(['https://a.example/1.jpg']))).toEqual([]);
    expect(
      validateGoogleBusiness(draft(['https://a.example/1.jpg', 'https://a.example/2.jpg'])),
    ).toEqual([
      { field: 'media_urls', message: 'google_business takes at most one photo per post' },
    ]);
  });

  it('options: call to action and language, each with a clear message', () => {
    const base = 'platform_options.google_business';
    expect(
      validateGoogleBusinessOptions({
        call_to_action: { action_type: 'BUY', url: 'nope', extra: true },
        language_code: 'english please',
        colour: 'red',
      }),
    ).toEqual([
      { field: `${base}.colour`, message: 'is not a known Google Business option' },
      {
        field: `${base}.language_code`,
        message: 'must be a BCP 47 language tag such as en or pt-BR, got "english please"',
      },
      { field: `${base}.call_to_action.extra`, message: 'is not a known call-to-action field' },
      {
        field: `${base}.call_to_action.action_type`,
        message: 'is required: one of BOOK, ORDER, SHOP, LEARN_MORE, SIGN_UP, CALL, got "BUY"',
      },
      {
        field: `${base}.call_to_action.url`,
        message: 'must be an absolute http(s) URL of at most 2048 characters',
      },
    ]);
    expect(
      validateGoogleBusinessOptions({ call_to_action: { action_type: 'LEARN_MORE' } }),
    ).toEqual([
      { field: `${base}.call_to_action.url`, message: 'is required for this action type' },
    ]);
    expect(
      validateGoogleBusinessOptions({
        call_to_action: { action_type: 'CALL', url: 'https://a.example' },
      }),
    ).toEqual([
      {
        field: `${base}.call_to_action.url`,
        message: 'must be left out for CALL (Google dials the location)',
      },
    ]);
    expect(validateGoogleBusinessOptions({ call_to_action: 'CALL' })).toEqual([
      { field: `${base}.call_to_action`, message: 'must be an object, got string' },
    ]);
    expect(
      validateGoogleBusinessOptions({
        call_to_action: { action_type: 'BOOK', url: 'https://a.example/book' },
        language_code: 'pt-BR',
      }),
    ).toEqual([]);
  });
});
