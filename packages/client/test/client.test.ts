/**
 * The client against the real service (embedded mode, over a socket): a sandbox connection, a
 * post, and the worker publishing it, every request and response through the generated types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedServer, startEmbeddedServer } from '../scripts/embedded-server.ts';
import { createSocialPublisherClient, type paths } from '../src/index.ts';

type Post = paths['/posts/{id}']['get']['responses'][200]['content']['application/json']['data'];

let server: EmbeddedServer;

beforeAll(async () => {
  server = await startEmbeddedServer();
});
afterAll(() => server?.close());

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('createSocialPublisherClient', () => {
  it('connects a sandbox account, publishes a post and reads it back published', async () => {
    const client = createSocialPublisherClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });

    const account = await client.POST('/social-accounts', {
      body: { platform: 'tiktok', sandbox: true, display_name: 'x' },
    });
    expect(account.response.status, JSON.stringify(account.error)).toBe(201);
    if (!account.data) throw new Error('no connection in the reply');
    expect(account.data.data).toMatchObject({
      platform: 'tiktok',
      sandbox: true,
      display_name: 'x',
    });

    const created = await client.POST('/posts', {
      params: { header: { 'idempotency-key': 'client-test-1' } },
      body: {
        content: 'hello from the typed client',
        // TikTok needs a video or a photo; a sandbox target never downloads it.
        media_urls: ['https://example.com/clip.mp4'],
        social_account_ids: [account.data.data.id],
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    if (!created.data) throw new Error('no post in the reply');
    const id = created.data.data.id;

    let post: Post | undefined;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const read = await client.GET('/posts/{id}', { params: { path: { id } } });
      if (!read.data) throw new Error(`GET /posts/${id}: ${read.response.status}`);
      post = read.data.data;
      if (!['scheduled', 'queued', 'publishing'].includes(post.status)) break;
      if (Date.now() > deadline) throw new Error(`post still ${post.status} after 15 s`);
      await sleep(100);
    }

    expect(post.status).toBe('published');
    expect(post.sandbox).toBe(true);
    expect(post.content).toBe('hello from the typed client');
    expect(post.post_targets).toHaveLength(1);
    expect(post.post_targets[0]).toMatchObject({
      platform: 'tiktok',
      social_account_id: account.data.data.id,
      status: 'published',
      platform_post_id: expect.stringMatching(/^sandbox-/),
    });
  });

  it('edits and reschedules a scheduled post (PATCH /posts/{id}, updatePost)', async () => {
    const client = createSocialPublisherClient({ baseUrl: server.baseUrl, apiKey: server.apiKey });
    const account = await client.POST('/social-accounts', {
      body: { platform: 'twitter', sandbox: true, display_name: 'edit' },
    });
    if (!account.data) throw new Error('no connection in the reply');
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const created = await client.POST('/posts/schedule', {
      body: { content: 'draft', social_account_ids: [account.data.data.id], scheduled_at: at },
    });
    if (!created.data) throw new Error(`no post in the reply: ${JSON.stringify(created.error)}`);
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const edited = await client.PATCH('/posts/{id}', {
      params: { path: { id: created.data.data.id } },
      body: { content: 'final', scheduled_at: later },
    });
    expect(edited.response.status, JSON.stringify(edited.error)).toBe(200);
    expect(edited.data?.data).toMatchObject({
      content: 'final',
      scheduled_at: later,
      status: 'scheduled',
    });
  });

  it('sends the API key as a bearer token, through the fetch it is given', async () => {
    const seen: string[] = [];
    const recording = (request: Request) => {
      seen.push(
        `${request.method} ${new URL(request.url).pathname} ${request.headers.get('authorization')}`,
      );
      return fetch(request);
    };

    const good = createSocialPublisherClient({
      baseUrl: server.baseUrl,
      apiKey: server.apiKey,
      fetch: recording,
    });
    const listed = await good.GET('/social-accounts');
    expect(listed.response.status).toBe(200);
    expect(seen).toEqual([`GET /social-accounts Bearer ${server.apiKey}`]);

    const bad = createSocialPublisherClient({ baseUrl: server.baseUrl, apiKey: 'sp_not-a-key' });
    const refused = await bad.GET('/social-accounts');
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.code).toBe('unauthorized');
  });
});
