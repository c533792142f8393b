/**
 * Mastodon end to end, in both modes: a client names an instance when connecting; the service
 * registers its app there once (reused by later connects), the browser consents with PKCE, the
 * callback makes the connection with its instance and that instance's status length; posts
 * are checked against that length and published (a thread as replies, under Idempotency-Keys)
 * by the worker to the fake instance; the comments under it are read by the worker, announced
 * once, shown in the inbox and answered once per Idempotency-Key.
 */
import { describe, expect, it } from 'vitest';
import type { PostJson } from '../src/schemas/posts.ts';
import { refreshAndRead } from './e2e/metrics.ts';
import { PUBLIC_BASE_URL, RETURN_ORIGIN, type System, waitFor } from './e2e/system.ts';
import { productionCheck, skippedNote, useSystem } from './e2e/use-system.ts';

interface Connection {
  id: string;
  platform: string;
  external_id: string;
  display_name: string | null;
  status: string;
  scopes: string[];
}

const browse = (url: string, cookie?: string) =>
  fetch(url, { redirect: 'manual', ...(cookie ? { headers: { cookie } } : {}) });

/** A URL under PUBLIC_BASE_URL, on the API's real port. */
function onApi(system: System, url: string): string {
  const parsed = new URL(url);
  expect(parsed.origin).toBe(PUBLIC_BASE_URL);
  return `${system.api.baseUrl}${parsed.pathname}${parsed.search}`;
}

async function connect(system: System, instance: string) {
  const started = await system.api.call<{ data: { authorization_url: string; state: string } }>(
    'POST',
    '/social-accounts/connect',
    { platform: 'mastodon', instance, return_url: `${RETURN_ORIGIN}/connected` },
  );
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  // Our consent link: the browser's cookie, then the instance's own consent page.
  const opened = await browse(onApi(system, started.body.data.authorization_url));
  expect(opened.status).toBe(302);
  const cookie = opened.headers.get('set-cookie')?.split(';')[0] ?? '';
  const consentUrl = new URL(opened.headers.get('location') ?? '');
  const consent = await browse(consentUrl.toString());
  expect(consent.status).toBe(302);
  const callback = await browse(onApi(system, consent.headers.get('location') ?? ''), cookie);
  expect(callback.status).toBe(302);
  const back = new URL(callback.headers.get('location') ?? '');
  expect(back.searchParams.get('error_description')).toBeNull();
  const ids = (back.searchParams.get('social_account_ids') ?? '').split(',');
  return { consentUrl, ids };
}

async function published(system: System, id: string): Promise<PostJson> {
  return waitFor('the post to end', async () => {
    const post = await system.api.call<{ data: PostJson }>('GET', `/posts/${id}`);
    return ['published', 'failed', 'partial'].includes(post.body.data.status)
      ? post.body.data
      : undefined;
  });
}

interface CommentJson {
  id: string;
  text: string;
  [field: string]: unknown;
}

/**
 * POST /posts/:id/comments/refresh, then GET until the worker has read the target again and
 * the post has at least `count` comments of others.
 */
async function readComments(system: System, postId: string, count: number) {
  type Listed = { data: CommentJson[]; targets: Array<{ read_at: string | null }> };
  const before = await system.api.call<Listed>('GET', `/posts/${postId}/comments`);
  const lastRead = before.body.targets[0]?.read_at ?? null;
  const asked = await system.api.call('POST', `/posts/${postId}/comments/refresh`);
  expect(asked.status, JSON.stringify(asked.body)).toBe(202);
  return waitFor(`the comments of post ${postId}`, async () => {
    const got = await system.api.call<Listed>('GET', `/posts/${postId}/comments`);
    const readAt = got.body.targets[0]?.read_at ?? null;
    const others = got.body.data.filter((c) => c.mine === false);
    return readAt !== null && readAt !== lastRead && others.length >= count ? others : undefined;
  });
}

function defineMastodonScenarios(get: () => System): void {
  it('connects on any instance: app registered once, PKCE, then a thread published', async () => {
    const system = get();
    const fake = system.mastodon;
    const apps = fake.apps.length;
    const { consentUrl, ids } = await connect(system, `${fake.baseUrl}/about?ref=x`);
    expect(fake.apps).toHaveLength(apps + 1);
    expect(fake.apps.at(-1)?.redirectUris).toBe(`${PUBLIC_BASE_URL}/oauth/callback/mastodon`);
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe(`${fake.baseUrl}/oauth/authorize`);
    expect(consentUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(consentUrl.searchParams.get('scope')).toBe('read:accounts write:statuses write:media');

    const listed = await system.api.call<{ data: Connection[] }>('GET', '/social-accounts');
    const connection = listed.body.data.find((c) => c.id === ids[0]);
    const host = new URL(fake.baseUrl).host;
    expect(connection).toMatchObject({
      platform: 'mastodon',
      external_id: `${fake.account.id}@${host}`,
      display_name: `@fake@${host}`,
      status: 'active',
    });

    // A second connect to the same instance reuses the app: a reconnect, same connection.
    const again = await connect(system, fake.baseUrl);
    expect(fake.apps).toHaveLength(apps + 1);
    expect(again.ids).toEqual(ids);

    const statuses = fake.statuses.length;
    const created = await system.api.call<{ data: PostJson }>('POST', '/posts', {
      content: `Hello from ${system.mode}`,
      social_account_ids: ids,
      media_urls: [system.media.url('mastodon-e2e.jpg', 4096)],
      thread: [{ content: 'Second' }, { content: 'Third' }],
      platform_options: { mastodon: { visibility: 'unlisted' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const done = await published(system, created.body.data.id);
    expect(done.status).toBe('published');
    const target = done.post_targets[0];
    const posted = fake.statuses.slice(statuses);
    expect(posted.map((s) => s.id)).toEqual([
      target?.platform_post_id,
      ...(target?.thread_post_ids ?? []),
    ]);
    expect(posted[1]?.inReplyToId).toBe(posted[0]?.id);
    expect(posted[2]?.inReplyToId).toBe(posted[1]?.id);
    expect(posted.every((s) => s.visibility === 'unlisted' && s.idempotencyKey !== null)).toBe(
      true,
    );
    expect(posted[0]?.mediaIds).toHaveLength(1);

    // Its numbers, read from the instance on refresh (GET /api/v1/statuses/:id).
    fake.counts.set(target?.platform_post_id ?? '', {
      favourites_count: 41,
      reblogs_count: 2,
      replies_count: 0,
    });
    const read = await refreshAndRead(system.api, done.id);
    expect(read.targets[0]).toMatchObject({ state: 'fresh', error: null });
    expect(read.targets[0]?.metrics).toMatchObject({ likes: 41, shares: 2, comments: 0 });

    // Taken down on the instance: the replies (last first), then the status.
    const asked = await system.api.call('POST', `/posts/${done.id}/unpublish`);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    await waitFor('the Mastodon target to be removed', async () => {
      const got = await system.api.call<{ data: PostJson }>('GET', `/posts/${done.id}`);
      return got.body.data.post_targets[0]?.status === 'removed' ? true : undefined;
    });
    const postedIds = posted.map((s) => s.id);
    expect(fake.statuses.filter((s) => postedIds.includes(s.id))).toEqual([]);
  });

  it("refuses a post too long for the connection's instance, naming its limit", async () => {
    const system = get();
    const { ids } = await connect(system, system.mastodon.baseUrl);
    const checked = await system.api.call<{
      data: { valid: boolean; problems: Array<{ field: string; message: string }> };
    }>('POST', '/posts/validate', { content: 'x'.repeat(501), social_account_ids: ids });
    expect(checked.status).toBe(200);
    expect(checked.body.data.valid).toBe(false);
    expect(checked.body.data.problems).toContainEqual({
      field: 'content',
      message: `is 501 characters: Mastodon statuses on ${system.mastodon.baseUrl} are limited to 500 characters`,
    });
    const created = await system.api.call<{ error: { code: string } }>('POST', '/posts', {
      content: 'x'.repeat(501),
      social_account_ids: ids,
    });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('validation_failed');
  });

  it('a sandbox connection: the default length of 500, published without calling an instance', async () => {
    const system = get();
    const sandbox = await system.api.call<{ data: { id: string; sandbox: boolean } }>(
      'POST',
      '/social-accounts',
      { platform: 'mastodon', sandbox: true },
    );
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(201);
    const ids = [sandbox.body.data.id];
    const tooLong = await system.api.call('POST', '/posts', {
      content: 'x'.repeat(501),
      social_account_ids: ids,
    });
    expect(tooLong.status).toBe(400);
    const before = system.mastodon.requests.length;
    const created = await system.api.call<{ data: PostJson }>('POST', '/posts', {
      content: 'x'.repeat(500),
      social_account_ids: ids,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const done = await published(system, created.body.data.id);
    expect(done.status).toBe('published');
    expect(done.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);
    expect(system.mastodon.requests.length).toBe(before);
  });

  it('comments: read by the worker, announced once, in the inbox, answered once per key', async () => {
    const system = get();
    const fake = system.mastodon;
    const { ids } = await connect(system, fake.baseUrl);
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/comments'),
      events: ['comment.received'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/comments', hook.body.data.secret);
    const created = await system.api.call<{ data: PostJson }>('POST', '/posts', {
      content: `Comment on this (${system.mode})`,
      social_account_ids: ids,
    });
    const done = await published(system, created.body.data.id);
    const statusId = done.post_targets[0]?.platform_post_id ?? '';
    const fan = fake.addReply(statusId, 'Lovely post');
    const comments = await readComments(system, done.id, 1);
    expect(comments[0]).toMatchObject({
      platform: 'mastodon',
      platform_comment_id: fan.id,
      parent_id: null,
      author: { id: fan.account.id, handle: fan.account.acct },
      text: 'Lovely post',
      mine: false,
      read: false,
      can: { reply: true, hide: false, delete: false },
    });
    const announced = () => system.receiver.arrivalsFor(done.id, '/comments');
    await waitFor('comment.received', async () => (announced().length > 0 ? true : undefined));
    // Read again: the same comment is neither stored nor announced twice.
    await readComments(system, done.id, 1);
    expect(announced()).toHaveLength(1);
    expect(announced()[0]?.payload.data).toMatchObject({ comment_id: fan.id, text: 'Lovely post' });

    const inbox = await system.api.call<{ data: Array<{ id: string }> }>(
      'GET',
      '/inbox?unread=true',
    );
    expect(inbox.body.data.map((c) => c.id)).toContain(comments[0]?.id);
    const reply = () =>
      system.api.call<{ data: { id: string; mine: boolean; parent_id: string } }>(
        'POST',
        `/comments/${comments[0]?.id}/replies`,
        { text: 'Thank you!' },
        { 'idempotency-key': `reply-${system.mode}` },
      );
    const first = await reply();
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({ mine: true, parent_id: comments[0]?.id });
    const second = await reply();
    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(fake.statuses.filter((s) => s.inReplyToId === fan.id)).toHaveLength(1);

    const hidden = await system.api.call<{ error: { code: string } }>(
      'POST',
      `/comments/${comments[0]?.id}/hide`,
      { hidden: true },
    );
    expect(hidden.status).toBe(422);
    expect(hidden.body.error.code).toBe('unsupported');
    const marked = await system.api.call<{ data: { marked: number } }>('POST', '/inbox/read', {
      comment_ids: [comments[0]?.id],
    });
    expect(marked.body.data.marked).toBe(1);
    const unread = await system.api.call<{ data: Array<{ id: string }> }>(
      'GET',
      '/inbox?unread=true',
    );
    expect(unread.body.data.map((c) => c.id)).not.toContain(comments[0]?.id);
  });

  it('bad connect input is a clear 400, and nothing reaches the instance', async () => {
    const system = get();
    const before = system.mastodon.requests.length;
    const refused = async (body: Record<string, unknown>, field: string) => {
      const answer = await system.api.call<{
        error: { code: string; details?: Array<{ field: string; message: string }> };
      }>('POST', '/social-accounts/connect', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(answer.body.error)).toContain(field);
    };
    await refused({ platform: 'mastodon' }, 'instance');
    await refused({ platform: 'mastodon', instance: 'not a url' }, 'instance');
    await refused({ platform: 'mastodon', instance: 'ftp://mastodon.example' }, 'instance');
    await refused({ platform: 'twitter', instance: system.mastodon.baseUrl }, 'instance');
    await refused({ platform: 'mastodon', instance: 42 }, 'instance');
    expect(system.mastodon.requests.length).toBe(before);
  });
}

describe('mastodon, embedded mode', () => {
  const e2e = useSystem('embedded', {
    env: { METRICS_READ_INTERVAL_MS: '100', METRICS_MIN_REFRESH_S: '0' },
  });
  defineMastodonScenarios(e2e.get);
});

const production = await productionCheck();

describe.skipIf(production.skipReason)(
  `mastodon, production mode${skippedNote(production.skipReason)}`,
  () => {
    const e2e = useSystem('production', {
      database: production.database,
      env: { METRICS_READ_INTERVAL_MS: '100', METRICS_MIN_REFRESH_S: '0' },
    });
    defineMastodonScenarios(e2e.get);
  },
);
