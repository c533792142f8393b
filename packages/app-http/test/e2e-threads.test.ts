/**
 * Threads end to end, in both modes: POST /posts with `thread` -> worker -> the fake X (and the
 * fake Threads) -> a reply chain; GET /posts/:id shows the main post and each follow-up's id. A follow-up X
 * refuses leaves the target failed with what was published kept and shown; a platform without
 * replies refuses `thread` with a 400 naming the field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Mode, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface TargetJson {
  status: string;
  platform_post_id: string | null;
  thread_post_ids: string[];
  first_comment_id: string | null;
  error_code: string | null;
}
interface PostJson {
  id: string;
  status: string;
  thread: { content: string; media_urls: string[] }[];
  post_targets: TargetJson[];
}

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('threads end to end, %s mode', (mode) => {
  const e2e = useSystem(mode);
  const connections = new Map<string, string>();

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const accounts = {
      twitter: { external_id: system.x.user.id, access_token: 'x-thread-token' },
      linkedin: {
        external_id: `urn:li:person:${system.linkedin.member.sub}`,
        access_token: 'linkedin-thread-token',
      },
      threads: { external_id: system.threads.profile.id, access_token: 'threads-thread-token' },
    };
    for (const [platform, connection] of Object.entries(accounts)) {
      const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        display_name: `${platform} threads`,
        ...connection,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  async function publishAndWait(body: Record<string, unknown>): Promise<PostJson> {
    const api = e2e.get().api;
    const response = await api.call<{ data: PostJson }>('POST', '/posts', body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const id = response.body.data.id;
    return waitFor(
      'the thread to end',
      async () => {
        const got = await api.call<{ data: PostJson }>('GET', `/posts/${id}`);
        return ['published', 'failed', 'partial'].includes(got.body.data.status)
          ? got.body.data
          : undefined;
      },
      20_000,
    );
  }

  it('X: the follow-ups go out as a reply chain, their ids in GET /posts/:id', async (context) => {
    const system = e2e.orSkip(context);
    const main = tag('Main');
    const thread = [{ content: tag('Second') }, { content: tag('Third') }];
    const post = await publishAndWait({
      content: main,
      social_account_ids: [connections.get('twitter')],
      thread,
    });
    const target = post.post_targets[0];
    expect(post.status, JSON.stringify(target)).toBe('published');
    expect(post.thread.map((part) => part.content)).toEqual(thread.map((part) => part.content));
    const tweets = system.x.tweets;
    const mainTweet = tweets.find((tweet) => tweet.text === main);
    const [second, third] = thread.map((part) => tweets.find((t) => t.text === part.content));
    expect(target).toMatchObject({
      platform_post_id: mainTweet?.id,
      thread_post_ids: [second?.id, third?.id],
      first_comment_id: null,
    });
    expect(second?.replyTo).toBe(mainTweet?.id);
    expect(third?.replyTo).toBe(second?.id);
  }, 30_000);

  it('X: a follow-up refused leaves the target failed, what was published kept and shown', async (context) => {
    const system = e2e.orSkip(context);
    const main = tag('Kept');
    const first = tag('Out');
    // X refuses a duplicate (403): the second follow-up repeats the main post.
    const post = await publishAndWait({
      content: main,
      social_account_ids: [connections.get('twitter')],
      thread: [{ content: first }, { content: main }],
    });
    const tweets = system.x.tweets;
    expect(post.status).toBe('failed');
    expect(post.post_targets[0]).toMatchObject({
      status: 'failed',
      error_code: 'duplicate_content',
      platform_post_id: tweets.find((tweet) => tweet.text === main)?.id,
      thread_post_ids: [tweets.find((tweet) => tweet.text === first)?.id],
    });
    expect(tweets.filter((tweet) => tweet.text === main)).toHaveLength(1);
  }, 30_000);

  it('Threads: the follow-ups go out as a reply chain and first_comment as the first reply', async (context) => {
    const system = e2e.orSkip(context);
    const main = tag('Threads main');
    const thread = [
      { content: tag('Threads second') },
      { content: tag('Threads third'), media_urls: [system.media.url(`${tag('t')}.jpg`, 4096)] },
    ];
    const post = await publishAndWait({
      content: main,
      social_account_ids: [connections.get('threads')],
      thread,
      first_comment: 'More at https://example.com',
    });
    const target = post.post_targets[0];
    expect(post.status, JSON.stringify(target)).toBe('published');
    const posts = system.threads.posts;
    const mainPost = posts.find((candidate) => candidate.text === main);
    const [second, third] = thread.map((part) => posts.find((p) => p.text === part.content));
    const reply = posts.find(
      (candidate) =>
        candidate.text === 'More at https://example.com' && candidate.replyTo === mainPost?.id,
    );
    expect(target).toMatchObject({
      platform_post_id: mainPost?.id,
      thread_post_ids: [second?.id, third?.id],
      first_comment_id: reply?.id,
    });
    expect(second?.replyTo).toBe(mainPost?.id);
    expect(third).toMatchObject({ replyTo: second?.id, mediaType: 'IMAGE' });
  }, 30_000);

  it('Threads: a follow-up refused leaves the target failed, what was published kept and shown', async (context) => {
    const system = e2e.orSkip(context);
    const main = tag('Threads kept');
    const first = tag('Threads out');
    const refused = tag('Threads refused');
    system.threads.script({
      error: { code: 10, message: 'Application does not have permission for this action' },
      on: 'create',
      text: refused,
    });
    const post = await publishAndWait({
      content: main,
      social_account_ids: [connections.get('threads')],
      thread: [{ content: first }, { content: refused }],
    });
    const posts = system.threads.posts;
    expect(post.status).toBe('failed');
    expect(post.post_targets[0]).toMatchObject({
      status: 'failed',
      error_code: '10',
      platform_post_id: posts.find((candidate) => candidate.text === main)?.id,
      thread_post_ids: [posts.find((candidate) => candidate.text === first)?.id],
    });
    expect(posts.filter((candidate) => candidate.text === main)).toHaveLength(1);
    expect(posts.some((candidate) => candidate.text === refused)).toBe(false);
  }, 30_000);

  it('Threads: a sandbox connection publishes without calling Threads, or fails as asked', async (context) => {
    const system = e2e.orSkip(context);
    const created = await system.api.call<{ data: { id: string; sandbox: boolean } }>(
      'POST',
      '/social-accounts',
      { platform: 'threads', sandbox: true, display_name: 'threads sandbox' },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.sandbox).toBe(true);
    const requestsBefore = system.threads.requests.length;
    const post = await publishAndWait({
      content: tag('Sandboxed'),
      social_account_ids: [created.body.data.id],
      thread: [{ content: 'part two' }],
      first_comment: 'first reply',
    });
    expect(post.status).toBe('published');
    expect(post.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);
    const failed = await publishAndWait({
      content: tag('Sandbox fails'),
      social_account_ids: [created.body.data.id],
      platform_options: { threads: { sandbox_outcome: 'failed' } },
    });
    expect(failed.post_targets[0]).toMatchObject({
      status: 'failed',
      error_code: 'sandbox_failed',
    });
    expect(system.threads.requests.length).toBe(requestsBefore);
  }, 30_000);

  it('LinkedIn: the first comment goes on the published post, its id in GET /posts/:id', async (context) => {
    const system = e2e.orSkip(context);
    const content = tag('Commented');
    const post = await publishAndWait({
      content,
      social_account_ids: [connections.get('linkedin')],
      first_comment: 'The link: https://example.com',
    });
    const target = post.post_targets[0];
    expect(post.status, JSON.stringify(target)).toBe('published');
    const made = system.linkedin.posts.find((candidate) => candidate.commentary === content);
    const comment = system.linkedin.comments.find((candidate) => candidate.object === made?.urn);
    expect(comment?.text).toBe('The link: https://example.com');
    expect(target).toMatchObject({
      platform_post_id: made?.urn,
      first_comment_id: comment?.urn,
      thread_post_ids: [],
    });
  }, 30_000);

  /** Schedules `body` a minute ahead, applies `edit` with a time 1.5 s ahead, waits for the end. */
  async function scheduleEditAndWait(
    body: Record<string, unknown>,
    edit: Record<string, unknown>,
  ): Promise<{ edited: PostJson; post: PostJson }> {
    const api = e2e.get().api;
    const scheduled_at = new Date(Date.now() + 60_000).toISOString();
    const created = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      ...body,
      scheduled_at,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id;
    const soon = new Date(Date.now() + 1_500).toISOString();
    const edited = await api.call<{ data: PostJson }>('PATCH', `/posts/${id}`, {
      ...edit,
      scheduled_at: soon,
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const post = await waitFor(
      'the edited post to end',
      async () => {
        const got = await api.call<{ data: PostJson }>('GET', `/posts/${id}`);
        return ['published', 'failed', 'partial'].includes(got.body.data.status)
          ? got.body.data
          : undefined;
      },
      20_000,
    );
    return { edited: edited.body.data, post };
  }

  it('PATCH replaces the thread of a scheduled post: only the new follow-ups go out', async (context) => {
    const system = e2e.orSkip(context);
    const main = tag('Edited main');
    const before = [{ content: tag('Old reply') }];
    const after = [{ content: tag('New reply') }, { content: tag('Newer reply') }];
    const { edited, post } = await scheduleEditAndWait(
      { content: main, social_account_ids: [connections.get('twitter')], thread: before },
      { thread: after },
    );
    expect(edited.thread.map((part) => part.content)).toEqual(after.map((part) => part.content));
    expect(post.status, JSON.stringify(post.post_targets)).toBe('published');
    const tweets = system.x.tweets;
    const ids = after.map((part) => tweets.find((tweet) => tweet.text === part.content)?.id);
    expect(post.post_targets[0]?.thread_post_ids).toEqual(ids);
    expect(tweets.filter((tweet) => tweet.text === before[0]?.content)).toHaveLength(0);
  }, 30_000);

  it('PATCH changes or removes the first comment of a scheduled post', async (context) => {
    const system = e2e.orSkip(context);
    const account = connections.get('linkedin');
    const changed = await scheduleEditAndWait(
      { content: tag('Comment changed'), social_account_ids: [account], first_comment: 'old' },
      { first_comment: 'the new comment' },
    );
    const made = system.linkedin.posts.find(
      (candidate) => candidate.urn === changed.post.post_targets[0]?.platform_post_id,
    );
    const comments = system.linkedin.comments.filter((c) => c.object === made?.urn);
    expect(comments.map((comment) => comment.text)).toEqual(['the new comment']);

    const removed = await scheduleEditAndWait(
      { content: tag('Comment removed'), social_account_ids: [account], first_comment: 'gone' },
      { first_comment: null },
    );
    expect(removed.post.status).toBe('published');
    expect(removed.post.post_targets[0]?.first_comment_id).toBeNull();
    const urn = removed.post.post_targets[0]?.platform_post_id;
    expect(system.linkedin.comments.filter((c) => c.object === urn)).toHaveLength(0);
  }, 40_000);

  it('PATCH checks thread and first_comment with the rules of create', async (context) => {
    const system = e2e.orSkip(context);
    const api = system.api;
    const created = await api.call<{ data: PostJson }>('POST', '/posts/schedule', {
      content: tag('Checked edit'),
      social_account_ids: [connections.get('linkedin')],
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(created.status).toBe(201);
    const response = await api.call<{
      error: { code: string; details: { field: string; message: string }[] };
    }>('PATCH', `/posts/${created.body.data.id}`, { thread: [{ content: 'more' }] });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual({
      field: 'thread',
      message: 'is not supported on linkedin (no replies)',
    });
    const tooLong = await api.call<{ error: { details: { field: string }[] } }>(
      'PATCH',
      `/posts/${created.body.data.id}`,
      { social_account_ids: [connections.get('twitter')], first_comment: 'hi' },
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details.map((d) => d.field)).toContain('first_comment');
  });

  it('X refuses first_comment with a 400 naming the field', async (context) => {
    const system = e2e.orSkip(context);
    const response = await system.api.call<{
      error: { details: { field: string; message: string }[] };
    }>('POST', '/posts', {
      content: tag('No comments'),
      social_account_ids: [connections.get('twitter')],
      first_comment: 'hi',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual({
      field: 'first_comment',
      message: 'is not supported on twitter',
    });
  });

  it('a platform without replies refuses thread with a 400 naming the field', async (context) => {
    const system = e2e.orSkip(context);
    const response = await system.api.call<{
      error: { code: string; details: { field: string; message: string }[] };
    }>('POST', '/posts', {
      content: tag('No replies'),
      social_account_ids: [connections.get('linkedin')],
      thread: [{ content: 'more' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual({
      field: 'thread',
      message: 'is not supported on linkedin (no replies)',
    });
  });

  it('a follow-up over X limit is refused at validation, naming the part', async (context) => {
    const system = e2e.orSkip(context);
    const response = await system.api.call<{
      error: { details: { field: string; message: string }[] };
    }>('POST', '/posts', {
      content: tag('Long'),
      social_account_ids: [connections.get('twitter')],
      thread: [{ content: 'ok' }, { content: 'x'.repeat(281) }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual({
      field: 'thread[1].content',
      message: 'twitter posts are limited to 280 characters',
    });
  });
});
