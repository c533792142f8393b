/**
 * Reddit and Google Business Profile end to end, in both modes: a connection made through our
 * authorization_url and the fake consent page (one per Business Profile location), posts through
 * the real publishers to the fakes, the platform's id and URL on the target, a signed
 * post.published webhook; bad input refused at create naming the field, and a platform's
 * refusal shown on the target with the platform's code.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startConnect, throughConsent } from './e2e/connect-scenarios.ts';
import { type Mode, RETURN_ORIGIN, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface TargetJson {
  social_account_id: string;
  status: string;
  platform_post_id: string | null;
  platform_url: string | null;
  error_code: string | null;
}
interface PostJson {
  id: string;
  status: string;
  post_targets: TargetJson[];
}
interface Connection {
  id: string;
  platform: string;
  external_id: string;
  display_name: string | null;
  status: string;
}

const modes: Mode[] = ['production', 'embedded'];
let sequence = 0;
const unique = (label: string) => `${label} ${Date.now().toString(36)}-${++sequence}`;

/** Connects through the consent page; the new connections' ids, in the order made. */
async function connect(system: System, platform: string): Promise<string[]> {
  const started = await startConnect(system, platform, `${RETURN_ORIGIN}/connected`);
  const callback = await throughConsent(system, started.authorization_url);
  expect(callback.status).toBe(302);
  const back = new URL(callback.headers.get('location') ?? '');
  expect(back.searchParams.get('error'), back.toString()).toBeNull();
  return (back.searchParams.get('social_account_ids') ?? '').split(',');
}

async function connections(system: System, ids: string[]): Promise<Connection[]> {
  const listed = await system.api.call<{ data: Connection[] }>('GET', '/social-accounts');
  return ids.map((id) => {
    const found = listed.body.data.find((c) => c.id === id);
    if (!found) throw new Error(`connection ${id} not listed`);
    return found;
  });
}

/** POST /posts, then the post once it ended. */
async function publishAndWait(system: System, body: Record<string, unknown>): Promise<PostJson> {
  const created = await system.api.call<{ data: PostJson }>('POST', '/posts', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id;
  return waitFor(
    'the post to end',
    async () => {
      const got = await system.api.call<{ data: PostJson }>('GET', `/posts/${id}`);
      return ['published', 'failed', 'partial'].includes(got.body.data.status)
        ? got.body.data
        : undefined;
    },
    20_000,
  );
}

async function expectWebhook(system: System, postId: string) {
  const arrivals = await waitFor('the post.published webhook', () => {
    const found = system.receiver.arrivalsFor(postId, '/published');
    return found.length > 0 ? found : undefined;
  });
  expect(arrivals[0]?.event).toBe('post.published');
  expect(system.receiver.rejected).toEqual([]);
}

async function expectRefused(system: System, body: Record<string, unknown>, field: string) {
  const refused = await system.api.call<{ error: { code: string; details?: unknown[] } }>(
    'POST',
    '/posts',
    body,
  );
  expect(refused.status, JSON.stringify(refused.body)).toBe(400);
  expect(refused.body.error.code).toBe('validation_failed');
  expect(JSON.stringify(refused.body.error.details)).toContain(field);
}

describe.each(modes)('Reddit and Google Business Profile end to end, %s mode', (mode) => {
  const e2e = useSystem(mode);
  let redditId = '';
  const locationIds: string[] = [];

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/published'),
      events: ['post.published'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/published', hook.body.data.secret);
  }, 60_000);

  it('reddit: connect through the consent page (permanent grant, our scopes)', async (context) => {
    const system = e2e.orSkip(context);
    const started = await startConnect(system, 'reddit');
    expect(new URL(started.authorization_url).pathname).toBe('/oauth/authorize/reddit');
    const ids = await connect(system, 'reddit');
    expect(ids).toHaveLength(1);
    const [made] = await connections(system, ids);
    expect(made).toMatchObject({
      platform: 'reddit',
      external_id: system.reddit.user.id,
      display_name: `u/${system.reddit.user.name}`,
      status: 'active',
    });
    redditId = made?.id ?? '';
    const consent = system.reddit.requests.findLast((r) => r.path === '/api/v1/authorize');
    expect(consent?.query).toMatchObject({
      duration: 'permanent',
      scope: 'identity submit read edit',
    });
  });

  it('reddit: a text post and a link post published, the permalink on the target, a signed webhook', async (context) => {
    const system = e2e.orSkip(context);
    const title = unique('Release notes');
    const text = await publishAndWait(system, {
      content: 'What changed this week',
      social_account_ids: [redditId],
      platform_options: { reddit: { subreddit: 'test', title } },
    });
    expect(text.status, JSON.stringify(text.post_targets)).toBe('published');
    const submission = system.reddit.submissions.find((s) => s.title === title);
    expect(submission).toMatchObject({ kind: 'self', selftext: 'What changed this week' });
    expect(text.post_targets[0]).toMatchObject({
      platform_post_id: submission?.name,
      platform_url: `https://www.reddit.com${submission?.permalink}`,
    });
    await expectWebhook(system, text.id);

    const image = system.media.url(`${unique('reddit').replace(/\W/g, '-')}.jpg`, 2_000);
    const link = await publishAndWait(system, {
      content: '',
      social_account_ids: [redditId],
      media_urls: [image],
      platform_options: {
        reddit: { subreddit: 'SocialPublisher', title: unique('A photo'), kind: 'link' },
      },
    });
    expect(link.status).toBe('published');
    expect(system.reddit.submissions.at(-1)).toMatchObject({ kind: 'link', url: image });
    await expectWebhook(system, link.id);
  });

  it('reddit: bad input is a 400 naming the field; a refusal in a 200 fails the target with Reddit’s code', async (context) => {
    const system = e2e.orSkip(context);
    const to = { content: 'x', social_account_ids: [redditId] };
    await expectRefused(system, to, 'platform_options.reddit.subreddit');
    await expectRefused(
      system,
      { ...to, platform_options: { reddit: { subreddit: 'test', title: 't'.repeat(301) } } },
      'platform_options.reddit.title',
    );
    await expectRefused(
      system,
      {
        ...to,
        media_urls: [system.media.url('self.jpg', 100)],
        platform_options: { reddit: { subreddit: 'test', title: 'self with media' } },
      },
      'media_urls',
    );
    const failed = await publishAndWait(system, {
      ...to,
      platform_options: { reddit: { subreddit: 'nosuchplace', title: unique('Lost') } },
    });
    expect(failed.status).toBe('failed');
    expect(failed.post_targets[0]?.error_code).toBe('SUBREDDIT_NOEXIST');
  });

  it('google_business: one consent, one connection per location, each holding its account', async (context) => {
    const system = e2e.orSkip(context);
    const [account] = system.googleBusiness.accounts;
    if (!account) throw new Error('the fake has no account');
    if (account.locations.length === 1) {
      account.locations.push({
        name: 'locations/2000000000000000002',
        title: 'Fake Bakery Harbour',
      });
    }
    const ids = await connect(system, 'google_business');
    const made = await connections(system, ids);
    expect(made.map((c) => [c.external_id, c.display_name])).toEqual([
      ['locations/2000000000000000001', 'Fake Bakery Downtown'],
      ['locations/2000000000000000002', 'Fake Bakery Harbour'],
    ]);
    locationIds.push(...ids);
  });

  it('google_business: a photo post with a button to both locations, searchUrl on each target, a signed webhook', async (context) => {
    const system = e2e.orSkip(context);
    const content = unique('Fresh bread at 7');
    const photo = system.media.url('bread.jpg', 5_000);
    const post = await publishAndWait(system, {
      content,
      social_account_ids: locationIds,
      media_urls: [photo],
      platform_options: {
        google_business: {
          call_to_action: { action_type: 'ORDER', url: 'https://bakery.example/order' },
        },
      },
    });
    expect(post.status, JSON.stringify(post.post_targets)).toBe('published');
    const made = system.googleBusiness.posts.filter((p) => p.summary === content);
    expect(made.map((p) => p.name.split('/localPosts/')[0]).sort()).toEqual([
      'accounts/1000000000000000001/locations/2000000000000000001',
      'accounts/1000000000000000001/locations/2000000000000000002',
    ]);
    for (const target of post.post_targets) {
      const local = made.find((p) => p.name === target.platform_post_id);
      expect(local?.media?.[0]).toMatchObject({ mediaFormat: 'PHOTO', sourceUrl: photo });
      expect(target.platform_url).toBe(local?.searchUrl);
    }
    await expectWebhook(system, post.id);
  });

  it('google_business: bad input is a 400 naming the field; a sandbox location publishes without calling Google', async (context) => {
    const system = e2e.orSkip(context);
    const to = { content: 'x', social_account_ids: [locationIds[0]] };
    await expectRefused(
      system,
      { ...to, media_urls: [system.media.url('v.mp4', 100)] },
      'media_urls',
    );
    await expectRefused(
      system,
      { ...to, media_urls: [system.media.url('1.jpg', 100), system.media.url('2.jpg', 100)] },
      'media_urls',
    );
    await expectRefused(system, { ...to, content: 'x'.repeat(1_501) }, 'content');
    await expectRefused(
      system,
      {
        ...to,
        platform_options: { google_business: { call_to_action: { action_type: 'LEARN_MORE' } } },
      },
      'platform_options.google_business.call_to_action.url',
    );
    const sandbox = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'google_business',
      sandbox: true,
      display_name: 'Bakery demo',
    });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(201);
    const before = system.googleBusiness.requests.length;
    const post = await publishAndWait(system, {
      content: 'A sandbox post',
      social_account_ids: [sandbox.body.data.id],
    });
    expect(post.status).toBe('published');
    expect(post.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);
    expect(system.googleBusiness.requests.length).toBe(before);
  });

  it('no token of either network appears in a log line or an answer', async (context) => {
    const system = e2e.orSkip(context);
    const issued = [system.reddit.oauth, system.googleBusiness.oauth].flatMap((o) =>
      o.issued.flatMap((t) => [t.accessToken, t.refreshToken ?? '']).filter((t) => t !== ''),
    );
    expect(issued.length).toBeGreaterThan(0);
    const logged = JSON.stringify(system.logs);
    const listed = JSON.stringify((await system.api.call('GET', '/social-accounts')).body);
    for (const token of issued) {
      expect(logged).not.toContain(token);
      expect(listed).not.toContain(token);
    }
  });
});
