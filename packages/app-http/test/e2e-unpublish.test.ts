/**
 * Unpublishing end to end, in both modes: POST /posts publishes to the fake X (and to the fake
 * Instagram, whose platform has no delete), POST /posts/:id/unpublish takes it down: the fake X
 * no longer has the post (nor a thread's follow-ups, deleted last first), GET /posts/:id shows
 * the X target `removed` and the Instagram one `published` with `unpublish: "unsupported"`, and
 * the webhook receives one signed `post.unpublished` with the counts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Mode, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface TargetJson {
  id: string;
  platform: string;
  status: string;
  platform_post_id: string | null;
  thread_post_ids: string[];
  unpublish: string | null;
  error_code: string | null;
}
interface PostJson {
  id: string;
  status: string;
  post_targets: TargetJson[];
}

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('unpublish end to end, %s mode', (mode) => {
  const e2e = useSystem(mode);
  const connections = new Map<string, string>();

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/unpublished'),
      events: ['post.unpublished'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/unpublished', hook.body.data.secret);
    const accounts = {
      twitter: { external_id: system.x.user.id, access_token: 'x-unpublish-token' },
      instagram: {
        external_id: system.instagram.account.id,
        access_token: 'instagram-unpublish-token',
      },
    };
    for (const [platform, connection] of Object.entries(accounts)) {
      const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        display_name: `${platform} unpublish`,
        ...connection,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  const getPost = async (id: string) =>
    (await e2e.get().api.call<{ data: PostJson }>('GET', `/posts/${id}`)).body.data;

  async function publishAndWait(body: Record<string, unknown>): Promise<PostJson> {
    const response = await e2e.get().api.call<{ data: PostJson }>('POST', '/posts', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const id = response.body.data.id;
    return waitFor(
      'the post to be published',
      async () => {
        const got = await getPost(id);
        return ['published', 'failed', 'partial'].includes(got.status) ? got : undefined;
      },
      30_000,
    );
  }

  it('takes an X post down; Instagram stays published as unsupported; post.unpublished arrives', async (context) => {
    const system = e2e.orSkip(context);
    const post = await publishAndWait({
      content: tag('Unpublish me'),
      social_account_ids: [connections.get('twitter'), connections.get('instagram')],
      media_urls: [system.media.url('unpublish.jpg', 2048)],
    });
    expect(post.status, JSON.stringify(post.post_targets)).toBe('published');
    const x = post.post_targets.find((target) => target.platform === 'twitter');
    const tweetId = x?.platform_post_id;
    expect(system.x.tweets.some((tweet) => tweet.id === tweetId)).toBe(true);

    const asked = await system.api.call<{ data: PostJson }>('POST', `/posts/${post.id}/unpublish`);
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const answered = asked.body.data.post_targets.map((t) => [t.platform, t.status, t.unpublish]);
    expect(answered).toContainEqual(['instagram', 'published', 'unsupported']);
    expect(answered.find(([platform]) => platform === 'twitter')?.[1]).toMatch(/^remov/);

    const arrival = await waitFor(
      'post.unpublished',
      () => system.receiver.arrivalsFor(post.id, '/unpublished')[0],
      30_000,
    );
    expect(arrival.event).toBe('post.unpublished');
    expect(arrival.payload.data).toEqual({ removed: 1, failed: 0, unsupported: 1, total: 2 });
    const after = await getPost(post.id);
    expect(after.post_targets.map((t) => [t.platform, t.status, t.unpublish])).toEqual(
      expect.arrayContaining([
        ['twitter', 'removed', null],
        ['instagram', 'published', 'unsupported'],
      ]),
    );
    expect(system.x.tweets.some((tweet) => tweet.id === tweetId)).toBe(false);
    expect(system.x.deletes.deleted).toContain(tweetId);

    // The removed target cannot be asked again: a 400 naming it.
    const again = await system.api.call('POST', `/posts/${post.id}/unpublish`, {
      target_ids: [x?.id],
    });
    expect(again.status).toBe(400);
    expect(JSON.stringify(again.body)).toContain(String(x?.id));
  }, 60_000);

  it('takes an X thread down, follow-ups first, asked twice: one job, one event', async (context) => {
    const system = e2e.orSkip(context);
    const post = await publishAndWait({
      content: tag('Thread down'),
      social_account_ids: [connections.get('twitter')],
      thread: [{ content: tag('Second') }, { content: tag('Third') }],
    });
    const x = post.post_targets[0];
    const ids = [...(x?.thread_post_ids ?? [])].reverse().concat(String(x?.platform_post_id));
    expect(ids).toHaveLength(3);
    const path = `/posts/${post.id}/unpublish`;
    // Both asks reach the API while the take-down is on its way (a removed target is no longer
    // askable, and a worker on a quick machine can finish three deletes between two requests).
    system.x.deletes.deleteDelayMs = 300;
    const [first, second] = await Promise.all([
      system.api.call('POST', path, { target_ids: [x?.id] }),
      system.api.call('POST', path),
    ]).finally(() => {
      system.x.deletes.deleteDelayMs = 0;
    });
    expect([first.status, second.status]).toEqual([202, 202]);
    await waitFor(
      'post.unpublished',
      () => system.receiver.arrivalsFor(post.id, '/unpublished')[0],
      30_000,
    );
    expect((await getPost(post.id)).post_targets[0]?.status).toBe('removed');
    const deleted = system.x.deletes.deleted.filter((id) => ids.includes(id));
    expect(deleted).toEqual(ids);
    const arrivals = system.receiver.arrivalsFor(post.id, '/unpublished');
    expect(arrivals.map((a) => a.payload.data)).toEqual([
      { removed: 1, failed: 0, unsupported: 0, total: 1 },
    ]);
  }, 60_000);

  it('refuses a post with nothing published, and ids that are not its targets', async (context) => {
    const system = e2e.orSkip(context);
    const scheduled = await system.api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: tag('Later'),
      social_account_ids: [connections.get('twitter')],
      scheduled_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(scheduled.status).toBe(201);
    const refused = await system.api.call<{ error: { code: string } }>(
      'POST',
      `/posts/${scheduled.body.data.id}/unpublish`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('post_not_published');
    const stranger = '0190a5d2-7a3b-7c4d-8e5f-0123456789ab';
    const unknown = await system.api.call<{ error: { code: string; message: string } }>(
      'POST',
      `/posts/${scheduled.body.data.id}/unpublish`,
      { target_ids: [stranger] },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain(stranger);
    const missing = await system.api.call('POST', `/posts/${stranger}/unpublish`);
    expect(missing.status).toBe(404);
  }, 30_000);
});
