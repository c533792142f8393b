// The Reddit publisher over real HTTP against the local fake (docs/platforms.md#reddit): text and
// link posts with flair and marks, the checks at create, Reddit's refusals inside a 200, its 429,
// token renewal, and a lost answer found among the user's submissions instead of a second post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redditRetryAt, submitRefusal, waitNamedIn } from '../src/reddit/api.ts';
import { validateRedditOptions } from '../src/reddit/options.ts';
import { validateReddit } from '../src/reddit/validate.ts';
import {
  afterCrash,
  expectPublished,
  type FakeReddit,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeReddit,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeReddit;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeReddit(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

function config() {
  const base = testConfig();
  return {
    ...base,
    settings: {
      ...base.settings,
      reddit: {
        apiBaseUrl: fake.baseUrl,
        authBaseUrl: fake.baseUrl,
        clientId: 'reddit-client-id',
        clientSecret: 'reddit-client-secret',
      },
    },
  };
}
const publisher = () => publisherFor('reddit', config());
let unique = 0;
const title = (label: string) => `${label} #${++unique}`;
const since = (from: number) => fake.requests.slice(from);
const submits = (from: number) => since(from).filter((r) => r.path === '/api/submit');
const redditRequest = (input: {
  content?: string;
  mediaUrls?: string[];
  options?: Record<string, unknown>;
  refreshToken?: string | null;
  accessToken?: string;
  platformData?: Record<string, string> | null;
}) =>
  makeRequest({
    platform: 'reddit',
    content: input.content ?? 'The body of a text post',
    mediaUrls: input.mediaUrls ?? [],
    platformOptions: { reddit: { subreddit: 'test', title: title('A post'), ...input.options } },
    externalId: fake.user.id,
    platformData:
      input.platformData === undefined ? { username: fake.user.name } : input.platformData,
    ...(input.refreshToken === undefined ? {} : { refreshToken: input.refreshToken }),
    ...(input.accessToken === undefined ? {} : { accessToken: input.accessToken }),
  });

describe('reddit publisher: posts', () => {
  it('a text post: the submit form (sr, kind self, title, text, api_type), the permalink', async () => {
    const from = fake.requests.length;
    const h = redditRequest({
      content: 'Long text\nwith lines',
      options: { title: 'Release notes', flair_id: 'f1a2-b3c4', nsfw: true, spoiler: true },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const created = fake.submissions.at(-1);
    expect(outcome).toEqual({
      kind: 'published',
      platformPostId: created?.name,
      platformUrl: `https://www.reddit.com${created?.permalink}`,
    });
    const [submit] = submits(from);
    expect(submit?.headers.authorization).toBe('Bearer access-1');
    expect(submit?.headers['user-agent']).toBe('server:social-publisher:1.0 (self-hosted)');
    expect(submit?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(submit?.body).toEqual({
      sr: 'test',
      kind: 'self',
      title: 'Release notes',
      text: 'Long text\nwith lines',
      flair_id: 'f1a2-b3c4',
      nsfw: 'true',
      spoiler: 'true',
      api_type: 'json',
    });
    expect(h.intents).toEqual(['submit']);
    expect(h.countedAt).toHaveLength(1);
  });

  it('a link post to the url option; another to the one media URL (checked by our guard)', async () => {
    const from = fake.requests.length;
    const first = redditRequest({ options: { kind: 'link', url: 'https://example.com/article' } });
    expectPublished(await publisher().publish(first.request));
    const image = media.url('reddit-link.jpg', 100);
    const second = redditRequest({ mediaUrls: [image], options: { kind: 'link' } });
    expectPublished(await publisher().publish(second.request));
    const [one, two] = submits(from);
    expect(one?.body).toMatchObject({ kind: 'link', url: 'https://example.com/article' });
    expect(one?.body).not.toHaveProperty('text');
    expect(two?.body).toMatchObject({ kind: 'link', url: image });
    expect(media.requests.some((r) => r.method === 'HEAD')).toBe(true);
  });
});

describe('reddit publisher: refusals', () => {
  it('a 200 with json.errors fails with Reddit’s code and says why, not retried', async () => {
    const outcome = await publisher().publish(
      redditRequest({ options: { subreddit: 'nosuchplace' } }).request,
    );
    expect(outcome).toMatchObject({
      kind: 'failed',
      code: 'SUBREDDIT_NOEXIST',
      retryable: false,
      message: expect.stringMatching(
        /that subreddit doesn't exist \(field sr\): the subreddit does not exist/,
      ),
    });
    const flair = await publisher().publish(
      redditRequest({ options: { subreddit: 'FlairsOnly' } }).request,
    );
    expect(flair).toMatchObject({
      code: 'SUBMIT_VALIDATION_FLAIR_REQUIRED',
      message: expect.stringContaining('platform_options.reddit.flair_id'),
    });
  });

  it('a refusal in a 200 ends the intent: nothing was created, a retry may send', async () => {
    fake.script({ submitError: ['SUBMIT_VALIDATION_TITLE_BLACKLISTED_STRING', 'no', 'title'] });
    const h = redditRequest({});
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed' });
    expect(h.intents).toEqual(['submit', null]);
  });

  it('RATELIMIT in json.errors is throttled for the wait Reddit names', async () => {
    fake.script({
      submitError: [
        'RATELIMIT',
        'you are doing that too much. try again in 9 minutes.',
        'ratelimit',
      ],
    });
    const before = Date.now();
    const outcome = await publisher().publish(redditRequest({}).request);
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'RATELIMIT' });
    const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
    expect(at).toBeGreaterThanOrEqual(before + 9 * 60_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 9 * 60_000 + 1_000);
  });

  it('a 429 is throttled until X-Ratelimit-Reset (seconds), without an attempt', async () => {
    fake.submitLimit = fake.submissions.length;
    try {
      const before = Date.now();
      const outcome = await publisher().publish(redditRequest({}).request);
      expect(outcome).toMatchObject({ kind: 'throttled', code: 'http_429' });
      const at = outcome.kind === 'throttled' ? outcome.retryAt.getTime() : 0;
      expect(at).toBeGreaterThanOrEqual(before + 42_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 47_000);
    } finally {
      fake.submitLimit = undefined;
    }
  });

  it('403 and 5xx: final and retryable', async () => {
    fake.script({ status: 403, body: { message: 'Forbidden', error: 403 }, on: 'submit' });
    expect(await publisher().publish(redditRequest({}).request)).toMatchObject({
      kind: 'failed',
      code: 'http_403',
      retryable: false,
    });
    fake.script({ status: 503, body: '<html>down</html>', on: 'submit' });
    expect(await publisher().publish(redditRequest({}).request)).toMatchObject({
      kind: 'failed',
      code: 'http_503',
      retryable: true,
    });
  });

  it('an expired token is renewed once (HTTP Basic on the auth host) and the post made', async () => {
    const consent = fake.oauth.authorize({
      clientId: 'reddit-client-id',
      redirectUri: 'https://app.example/cb',
      state: 's',
      scope: 'identity submit read edit',
    });
    if (!('redirect' in consent)) throw new Error('consent refused');
    const code = new URL(consent.redirect).searchParams.get('code') ?? '';
    const granted = fake.oauth.exchangeCode({
      code,
      clientId: 'reddit-client-id',
      clientSecret: 'reddit-client-secret',
      redirectUri: 'https://app.example/cb',
    });
    if (!granted.ok || !granted.tokens.refreshToken) throw new Error('no tokens');
    fake.expireAccessToken(granted.tokens.accessToken);
    const from = fake.requests.length;
    const h = redditRequest({
      accessToken: granted.tokens.accessToken,
      refreshToken: granted.tokens.refreshToken,
    });
    expectPublished(await publisher().publish(h.request));
    expect(h.tokens).toHaveLength(1);
    const renewal = since(from).find((r) => r.path === '/api/v1/access_token');
    expect(renewal?.body).toEqual({
      grant_type: 'refresh_token',
      refresh_token: granted.tokens.refreshToken,
    });
    const refused = await publisher().publish(
      redditRequest({ accessToken: granted.tokens.accessToken, refreshToken: 'unknown' }).request,
    );
    expect(refused.kind).toBe('connection_expired');
  });
});

describe('reddit publisher: never twice', () => {
  it('a post whose answer was dropped is found among the submissions: not sent again', async () => {
    fake.script({ dropAfterCreate: true });
    const h = redditRequest({});
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', code: 'network_error', retryable: true });
    expect(h.pendingIntent()?.step).toBe('submit');
    const created = fake.submissions.at(-1);
    const count = fake.submissions.length;
    const again = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(again.platformPostId).toBe(created?.name);
    expect(again.platformUrl).toBe(`https://www.reddit.com${created?.permalink}`);
    expect(fake.submissions.length).toBe(count);
    expect(fake.requests.at(-1)?.path).toBe('/user/fake_redditor/submitted');
  });

  it('a connection stored without its username asks /api/v1/me first', async () => {
    fake.script({ dropAfterCreate: true });
    const h = redditRequest({ platformData: null });
    await publisher().publish(h.request);
    const from = fake.requests.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(since(from).map((r) => r.path)).toEqual(['/api/v1/me', '/user/fake_redditor/submitted']);
  });

  it('when nothing matches, the request never arrived: it is sent, once', async () => {
    fake.script({ drop: true, on: 'submit' });
    const h = redditRequest({});
    expect(await publisher().publish(h.request)).toMatchObject({ code: 'network_error' });
    const before = fake.submissions.length;
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.submissions.length).toBe(before + 1);
  });

  it('when the submissions cannot be read, the outcome stays unknown and nothing is sent', async () => {
    const h = redditRequest({});
    expectPublished(await publisher().publish(h.request));
    fake.script({ status: 403, body: { message: 'Forbidden', error: 403 }, on: 'submitted' });
    const before = fake.submissions.length;
    const outcome = await publisher().resume(afterCrash(h).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(fake.submissions.length).toBe(before);
  });
});

describe('reddit rules', () => {
  const draft = (options: Record<string, unknown>, mediaUrls: string[] = []) => ({
    content: 'x',
    mediaUrls,
    platformOptions: { reddit: options },
  });
  const fields = (problems: Array<{ field: string }>) => problems.map((p) => p.field);

  it('subreddit and title are required; a text post takes no media or url', () => {
    expect(fields(validateReddit({ content: '', mediaUrls: [], platformOptions: {} }))).toEqual([
      'platform_options.reddit.subreddit',
      'platform_options.reddit.title',
    ]);
    expect(validateReddit(draft({ subreddit: 'test', title: 't' }))).toEqual([]);
    expect(
      fields(
        validateReddit(
          draft({ subreddit: 'test', title: 't', url: 'https://a.example' }, [
            'https://a.example/p.jpg',
          ]),
        ),
      ),
    ).toEqual(['platform_options.reddit.url', 'media_urls']);
  });

  it('a link post shares exactly one URL', () => {
    const link = { subreddit: 'test', title: 't', kind: 'link' };
    expect(fields(validateReddit(draft(link)))).toEqual(['platform_options.reddit.url']);
    expect(validateReddit(draft(link, ['https://a.example/p.jpg']))).toEqual([]);
    expect(validateReddit(draft({ ...link, url: 'https://a.example' }))).toEqual([]);
    expect(
      fields(validateReddit(draft(link, ['https://a.example/1.jpg', 'https://a.example/2.jpg']))),
    ).toEqual(['media_urls']);
    expect(
      fields(
        validateReddit(draft({ ...link, url: 'https://a.example' }, ['https://a.example/1.jpg'])),
      ),
    ).toEqual(['media_urls']);
  });

  it('each option is checked with a clear message', () => {
    expect(
      validateRedditOptions({
        subreddit: 'r/test',
        title: 'x'.repeat(301),
        kind: 'image',
        url: 'ftp://a',
        flair_id: '',
        nsfw: 'yes',
        extra: 1,
      }),
    ).toEqual([
      { field: 'platform_options.reddit.extra', message: 'is not a known Reddit option' },
      {
        field: 'platform_options.reddit.subreddit',
        message: 'must be a subreddit name without r/ (2-21 letters, digits or _), got "r/test"',
      },
      { field: 'platform_options.reddit.title', message: 'is limited to 300 characters' },
      { field: 'platform_options.reddit.kind', message: 'must be self or link, got "image"' },
      { field: 'platform_options.reddit.url', message: 'must be an absolute http(s) URL' },
      {
        field: 'platform_options.reddit.flair_id',
        message: 'must be a flair template id (1-64 characters)',
      },
      { field: 'platform_options.reddit.nsfw', message: 'must be a boolean, got string' },
    ]);
    expect(validateRedditOptions({ subreddit: 'AskReddit', title: '  ' })).toEqual([
      { field: 'platform_options.reddit.title', message: 'must not be empty' },
    ]);
  });

  it('waits: RATELIMIT messages, X-Ratelimit-Reset', () => {
    expect(waitNamedIn('try again in 9 minutes.')).toBe(540_000);
    expect(waitNamedIn('Take a break for 30 seconds before trying again.')).toBe(30_000);
    expect(waitNamedIn('slow down')).toBe(600_000);
    const now = Date.now();
    const at = redditRetryAt({ 'x-ratelimit-reset': '120' }, now).getTime();
    expect(at).toBeGreaterThanOrEqual(now + 120_000);
    expect(at).toBeLessThanOrEqual(now + 132_000);
    expect(
      submitRefusal([['ALREADY_SUB', 'that link has already been submitted', 'url']]),
    ).toMatchObject({
      outcome: { kind: 'failed', code: 'ALREADY_SUB', retryable: false },
    });
  });
});
