/**
 * Each platform's comments end to end, in both modes: a post published through the real
 * publisher to the platform's fake, someone else comments there, the worker reads it on a
 * refresh (GET /posts/:id/comments shows it, `comment.received` arrives once), and a reply sent
 * twice with one Idempotency-Key is posted once. Mastodon has its own scenario
 * (e2e-mastodon.test.ts), with the inbox and the refusals; Bluesky and LinkedIn theirs
 * (e2e-comments-bluesky-linkedin.test.ts). TikTok and Pinterest offer no comments: their
 * targets are `unsupported`, and acting on a comment under one is a 422, never a 5xx.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PINTEREST_BOARD_ID } from '../../testkit/src/index.ts';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface PostJson {
  id: string;
  status: string;
  post_targets: Array<{ id: string; status: string; platform_post_id: string | null }>;
}
interface CommentJson {
  id: string;
  platform_comment_id: string;
  text: string;
  mine: boolean;
  can: { reply: boolean; hide: boolean; delete: boolean };
}
interface TargetStateJson {
  platform: string;
  state: string;
  next_refresh_at: string | null;
  error: string | null;
}

interface Connected {
  platform: string;
  connection(system: System): { external_id: string; access_token: string };
  media?: 'image' | 'video';
  /** `platform_options` every post to it needs. */
  options?: Record<string, Record<string, unknown>>;
}

interface CommentCase extends Connected {
  /** Someone else comments on the published post; returns the platform's comment id. */
  comment(system: System, platformPostId: string, text: string): string;
}

const CASES: CommentCase[] = [
  {
    platform: 'facebook',
    connection: (system) => ({
      external_id: system.facebook.pages[0]?.id ?? '',
      access_token: 'facebook-comments-token',
    }),
    comment: (system, id, text) => system.facebook.addComment(id, text).id,
  },
  {
    platform: 'instagram',
    connection: (system) => ({
      external_id: system.instagram.account.id,
      access_token: 'instagram-comments-token',
    }),
    media: 'image',
    comment: (system, id, text) => system.instagram.addComment(id, text).id,
  },
  {
    platform: 'threads',
    connection: (system) => ({
      external_id: system.threads.profile.id,
      access_token: 'threads-comments-token',
    }),
    comment: (system, id, text) => system.threads.addReply(id, text).id,
  },
  {
    platform: 'youtube',
    connection: () => ({ external_id: 'UC-comments-channel', access_token: 'youtube-comments' }),
    media: 'video',
    comment: (system, id, text) => system.youtube.addComment(id, text).id,
  },
  {
    platform: 'twitter',
    connection: (system) => ({ external_id: system.x.user.id, access_token: 'x-comments-token' }),
    comment: (system, id, text) => system.x.addReply(id, text).id,
  },
];

/** The platforms whose comments are not read (no comments client). */
const UNREAD: Connected[] = [
  {
    platform: 'tiktok',
    connection: () => ({ external_id: 'tt-open-id-comments', access_token: 'tiktok-comments' }),
    media: 'video',
  },
  {
    platform: 'pinterest',
    connection: (system) => ({
      external_id: system.pinterest.user.id,
      access_token: 'pinterest-comments-token',
    }),
    media: 'image',
    options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
  },
];

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('each platform reads and answers comments, %s mode', (mode) => {
  const e2e = useSystem(mode, { env: { METRICS_READ_INTERVAL_MS: '100' } });
  const connections = new Map<string, string>();

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/platform-comments'),
      events: ['comment.received'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/platform-comments', hook.body.data.secret);
    for (const { platform, connection } of [...CASES, ...UNREAD]) {
      const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        display_name: `${platform} comments`,
        ...connection(system),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  /** Publishes a post to one connection and waits for it to be published. */
  async function publish(
    system: System,
    { platform, media, options }: Pick<Connected, 'platform' | 'media' | 'options'>,
  ) {
    const label = tag(platform);
    const mediaUrls =
      media === undefined
        ? []
        : [system.media.url(`${label}.${media === 'image' ? 'jpg' : 'mp4'}`, 50_000)];
    const created = await system.api.call<{ data: PostJson }>('POST', '/posts', {
      content: `Tell us what you think ${label}`,
      social_account_ids: [connections.get(platform)],
      media_urls: mediaUrls,
      ...(options ? { platform_options: options } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return waitFor(
      `the ${platform} post to be published`,
      async () => {
        const got = await system.api.call<{ data: PostJson }>(
          'GET',
          `/posts/${created.body.data.id}`,
        );
        return got.body.data.status === 'published' ? got.body.data : undefined;
      },
      30_000,
    );
  }

  for (const { platform, media, comment } of CASES) {
    it(`${platform}: a comment read on refresh, announced once, answered once per key`, async (context) => {
      const system = e2e.orSkip(context);
      const { api } = system;
      const post = await publish(system, { platform, media });
      const text = `Great news ${tag('fan')}`;
      const commentId = comment(system, String(post.post_targets[0]?.platform_post_id), text);

      const asked = await api.call('POST', `/posts/${post.id}/comments/refresh`);
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      const listed = await waitFor(
        `the ${platform} comment to be read`,
        async () => {
          const got = await api.call<{ data: CommentJson[] }>('GET', `/posts/${post.id}/comments`);
          const found = got.body.data.find((c) => c.platform_comment_id === commentId);
          return found;
        },
        30_000,
      );
      expect(listed).toMatchObject({ text, mine: false });
      const announced = await waitFor(
        'comment.received',
        () => system.receiver.arrivalsFor(post.id, '/platform-comments')[0],
        30_000,
      );
      expect(announced.payload.data).toMatchObject({ comment_id: commentId, text });

      const key = `reply-${tag(platform)}`;
      const reply = () =>
        api.call<{ data: { id: string; platform_comment_id: string; mine: boolean } }>(
          'POST',
          `/comments/${listed.id}/replies`,
          { text: 'Thank you!' },
          { 'idempotency-key': key },
        );
      const first = await reply();
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      expect(first.body.data.mine).toBe(true);
      const second = await reply();
      expect(second.status).toBe(201);
      expect(second.body.data.platform_comment_id).toBe(first.body.data.platform_comment_id);
      expect(system.receiver.arrivalsFor(post.id, '/platform-comments')).toHaveLength(1);
    }, 90_000);
  }

  for (const unread of UNREAD) {
    const { platform } = unread;
    it(`${platform}: comments unsupported; acting on a comment is 422 unsupported`, async (context) => {
      const system = e2e.orSkip(context);
      const { api } = system;
      const post = await publish(system, unread);
      const asked = await api.call<{ data: TargetStateJson[] }>(
        'POST',
        `/posts/${post.id}/comments/refresh`,
      );
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      const unsupported = {
        platform,
        state: 'unsupported',
        next_refresh_at: null,
        error: `comments are not read for ${platform} posts`,
      };
      expect(asked.body.data).toEqual([expect.objectContaining(unsupported)]);
      const listed = await api.call<{ data: CommentJson[]; targets: TargetStateJson[] }>(
        'GET',
        `/posts/${post.id}/comments`,
      );
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ data: [], targets: [unsupported] });

      // No read stores a comment under such a target: one is stored directly, to see that the
      // routes acting on a comment refuse it rather than fail.
      const target = post.post_targets[0];
      const now = new Date();
      const [stored] = await system.deps.repos.comments.insertNew([
        {
          id: system.deps.ids.newId(),
          accountId: system.userId,
          postId: post.id,
          targetId: target?.id ?? '',
          socialAccountId: connections.get(platform) ?? '',
          platform,
          platformCommentId: tag(`${platform}-comment`),
          parentPlatformId: null,
          parentId: null,
          author: { id: 'someone', name: 'Someone', handle: 'someone' },
          text: 'Nice',
          createdAt: now,
          hidden: false,
          mine: false,
          read: false,
          receivedAt: now,
          sandbox: false,
        },
      ]);
      const shown = await api.call<{ data: CommentJson[] }>('GET', `/posts/${post.id}/comments`);
      expect(shown.body.data).toMatchObject([
        { id: stored?.id, can: { reply: false, hide: false, delete: false } },
      ]);
      const refusals = [
        ['POST', `/comments/${stored?.id}/replies`, { text: 'Thanks' }],
        ['POST', `/comments/${stored?.id}/hide`, { hidden: true }],
        ['DELETE', `/comments/${stored?.id}`, undefined],
      ] as const;
      for (const [method, path, body] of refusals) {
        const answer = await api.call<{ error: { code: string; message: string } }>(
          method,
          path,
          body,
          { 'idempotency-key': tag('unsupported') },
        );
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(422);
        expect(answer.body.error).toMatchObject({
          code: 'unsupported',
          message: `${platform} comments cannot be answered or moderated here`,
        });
      }
    }, 90_000);
  }
});
