/**
 * Bluesky end to end, in both modes: POST /social-accounts with a handle and an app password
 * (createSession on the fake), then posts through the connection (worker -> the real adapter
 * -> the fake): facets, images, a thread of replies, the token renewal pass (refreshSession).
 * A wrong password or a missing field is a clear 400; the password is never logged.
 */
import { describe, expect, it } from 'vitest';
import { type FakeBluesky, startFakeBluesky } from '../../testkit/src/index.ts';
import { refreshAndRead } from './e2e/metrics.ts';
import { type Mode, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface TargetJson {
  status: string;
  platform_post_id: string | null;
  platform_url: string | null;
  thread_post_ids: string[];
  first_comment_id: string | null;
  error_code: string | null;
  error_message: string | null;
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
  token_expires_at: string | null;
  sandbox: boolean;
}
interface ErrorJson {
  error: { code: string; message: string; details?: { field: string; message: string }[] };
}

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('bluesky end to end, %s mode', (mode) => {
  let fake: FakeBluesky | undefined;
  const e2e = useSystem(mode, {
    prepare: async () => {
      fake = await startFakeBluesky();
      return {
        env: {
          BLUESKY_SERVICE_URL: fake.baseUrl,
          BLUESKY_RATE_LIMIT: 'off',
          // The fake's 2-hour JWTs count as expiring: the test runs the renewal pass itself.
          TOKEN_REFRESH_MARGIN_MS: '172800000',
          TOKEN_REFRESH_INTERVAL_MS: '3600000',
          METRICS_READ_INTERVAL_MS: '100',
        },
      };
    },
    release: () => fake?.close(),
  });
  let connectionId = '';

  const api = () => e2e.get().api;
  const bsky = () => fake as FakeBluesky;

  async function publishAndWait(body: Record<string, unknown>): Promise<PostJson> {
    const response = await api().call<{ data: PostJson }>('POST', '/posts', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const id = response.body.data.id;
    return waitFor(
      'the post to end',
      async () => {
        const got = await api().call<{ data: PostJson }>('GET', `/posts/${id}`);
        return ['published', 'failed', 'partial'].includes(got.body.data.status)
          ? got.body.data
          : undefined;
      },
      20_000,
    );
  }

  it('connects by handle and app password: the DID, the handle, the JWT expiry', async (context) => {
    const system = e2e.orSkip(context);
    const created = await api().call<{ data: Connection }>('POST', '/social-accounts', {
      platform: 'bluesky',
      handle: bsky().account.handle,
      app_password: bsky().account.appPassword,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const connection = created.body.data;
    connectionId = connection.id;
    expect(connection).toMatchObject({
      platform: 'bluesky',
      external_id: bsky().account.did,
      display_name: bsky().account.handle,
      status: 'active',
      sandbox: false,
    });
    const expiresAt = Date.parse(connection.token_expires_at ?? '');
    expect(Math.abs(expiresAt - (Date.now() + 7_200_000))).toBeLessThan(60_000);
    expect(JSON.stringify(created.body)).not.toContain(bsky().account.appPassword);
    expect(JSON.stringify(system.logs)).not.toContain(bsky().account.appPassword);
  });

  it("a wrong app password is a 400 platform_auth_failed naming Bluesky's error", async (context) => {
    const system = e2e.orSkip(context);
    const wrong = 'zzzz-yyyy-xxxx-wwww';
    const refused = await api().call<ErrorJson>('POST', '/social-accounts', {
      platform: 'bluesky',
      handle: bsky().account.handle,
      app_password: wrong,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('platform_auth_failed');
    expect(refused.body.error.message).toContain('AuthenticationRequired');
    expect(JSON.stringify(system.logs)).not.toContain(wrong);
  });

  it('missing or foreign fields are a 400 validation_failed naming each', async (context) => {
    e2e.orSkip(context);
    const missing = await api().call<ErrorJson>('POST', '/social-accounts', {
      platform: 'bluesky',
      handle: bsky().account.handle,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'app_password', message: 'is required for bluesky' }],
    });
    const tokens = await api().call<ErrorJson>('POST', '/social-accounts', {
      platform: 'bluesky',
      external_id: 'did:plc:x',
      access_token: 'token',
    });
    expect(tokens.status).toBe(400);
    expect(tokens.body.error.details?.map((d) => d.field).sort()).toEqual([
      'access_token',
      'app_password',
      'external_id',
      'handle',
    ]);
    const elsewhere = await api().call<ErrorJson>('POST', '/social-accounts', {
      platform: 'twitter',
      external_id: '1',
      access_token: 'token',
      app_password: 'secret',
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details).toEqual([
      { field: 'app_password', message: 'is not taken for twitter' },
    ]);
    const unknown = await api().call<ErrorJson>('POST', '/social-accounts', {
      platform: 'bluesky',
      handle: 'a',
      app_password: 'b',
      password: 'c',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('validation_failed');
  });

  it('publishes with link facets by byte offsets and images, then a thread of replies', async (context) => {
    const system = e2e.orSkip(context);
    const content = `${tag('Héllo 👋🏽')} read https://example.com/news #launch`;
    const photo = system.media.url('photo.jpg', 4096);
    const thread = [{ content: tag('Second') }, { content: tag('Third') }];
    const post = await publishAndWait({
      content,
      media_urls: [photo],
      social_account_ids: [connectionId],
      thread,
    });
    const target = post.post_targets[0] as TargetJson;
    expect(post.status, JSON.stringify(target)).toBe('published');
    const records = bsky().posts;
    const root = records.find((r) => r.record.text === content);
    const [second, third] = thread.map((part) =>
      records.find((r) => r.record.text === part.content),
    );
    expect(target).toMatchObject({
      platform_post_id: root?.uri,
      thread_post_ids: [second?.uri, third?.uri],
    });
    expect(target.platform_url).toBe(
      `https://bsky.app/profile/${bsky().account.did}/post/${root?.rkey}`,
    );
    const facets = root?.record.facets as { index: { byteStart: number; byteEnd: number } }[];
    const bytes = Buffer.from(content);
    expect(
      facets.map((f) => bytes.subarray(f.index.byteStart, f.index.byteEnd).toString()),
    ).toEqual(['https://example.com/news', '#launch']);
    expect(root?.record.embed).toMatchObject({ $type: 'app.bsky.embed.images' });
    const ref = (r: typeof root) => ({ uri: r?.uri, cid: r?.cid });
    expect(third?.record.reply).toEqual({ root: ref(root), parent: ref(second) });

    // Taken down: deleteRecord for each reply (last first), then the post.
    const asked = await api().call('POST', `/posts/${post.id}/unpublish`);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    await waitFor('the Bluesky target to be removed', async () => {
      const got = await api().call<{ data: PostJson }>('GET', `/posts/${post.id}`);
      return got.body.data.post_targets[0]?.status === 'removed' ? true : undefined;
    });
    const uris = [root?.uri, second?.uri, third?.uri];
    expect(bsky().posts.filter((r) => uris.includes(r.uri))).toEqual([]);
  }, 30_000);

  it("a published post's numbers are read from Bluesky (getPosts) on refresh", async (context) => {
    const system = e2e.orSkip(context);
    const post = await publishAndWait({
      content: tag('Numbers'),
      social_account_ids: [connectionId],
    });
    const uri = post.post_targets[0]?.platform_post_id ?? '';
    bsky().counts.set(uri, { likeCount: 41, repostCount: 3, replyCount: 0, quoteCount: null });
    const read = await refreshAndRead(system.api, post.id);
    expect(read.targets[0]).toMatchObject({ state: 'fresh', error: null });
    expect(read.targets[0]?.metrics).toMatchObject({
      likes: 41,
      shares: 3,
      comments: 0,
      quotes: null,
      views: null,
    });
  }, 30_000);

  it('validation counts graphemes: 300 emoji pass, 301 are refused', async (context) => {
    e2e.orSkip(context);
    const check = (content: string) =>
      api().call<{ data: { valid: boolean; problems?: unknown } } | ErrorJson>(
        'POST',
        '/posts/validate',
        { content, social_account_ids: [connectionId] },
      );
    expect((await check('👍🏽'.repeat(300))).status).toBe(200);
    const over = await check('👍🏽'.repeat(301));
    expect(JSON.stringify(over.body)).toMatch(/300/);
  });

  it('the renewal pass refreshes the session; posts go out with the new token', async (context) => {
    const system = e2e.orSkip(context);
    const before = bsky().requests.filter((r) => r.path.endsWith('refreshSession')).length;
    await system.worker.refreshTokensNow();
    expect(bsky().requests.filter((r) => r.path.endsWith('refreshSession')).length).toBe(
      before + 1,
    );
    const post = await publishAndWait({
      content: tag('Renewed'),
      social_account_ids: [connectionId],
    });
    expect(post.status).toBe('published');
  }, 30_000);

  it('a sandbox Bluesky connection never calls Bluesky', async (context) => {
    e2e.orSkip(context);
    const created = await api().call<{ data: Connection }>('POST', '/social-accounts', {
      platform: 'bluesky',
      sandbox: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const calls = bsky().requests.length;
    const post = await publishAndWait({
      content: tag('Sandboxed'),
      social_account_ids: [created.body.data.id],
    });
    expect(post.status).toBe('published');
    expect(post.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);
    expect(bsky().requests.length).toBe(calls);
  }, 30_000);
});
