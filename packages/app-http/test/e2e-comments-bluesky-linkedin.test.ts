/**
 * Bluesky's and LinkedIn's comments end to end, in both modes: a post published through the
 * real publisher to the platform's fake, others comment there (one of them answering another),
 * the worker reads both on a refresh (GET /posts/:id/comments: their shape, the nested one under
 * its parent, `can`), each is announced once by `comment.received`, the inbox shows them unread
 * until POST /inbox/read; a reply sent twice with one Idempotency-Key is posted once, hide and
 * deleting another's comment are 422 `unsupported`, our own reply is deleted on the platform,
 * and a reply to a comment deleted there meanwhile is 409 `comment_gone`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type FakeBluesky, startFakeBluesky } from '../../testkit/src/index.ts';
import type { PostJson } from '../src/schemas/posts.ts';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface CommentJson {
  id: string;
  post_id: string;
  platform: string;
  platform_comment_id: string;
  parent_id: string | null;
  text: string;
  mine: boolean;
  read: boolean;
  can: { reply: boolean; hide: boolean; delete: boolean };
  [field: string]: unknown;
}
interface ErrorJson {
  error: { code: string; message: string };
}

/** What a case reaches: the shared system, and the Bluesky fake this file starts itself. */
interface Fakes {
  system: System;
  bluesky: FakeBluesky;
}

interface CommentCase {
  platform: 'bluesky' | 'linkedin';
  /** The POST /social-accounts body of a connection whose comments can be read. */
  connection(fakes: Fakes): Record<string, unknown>;
  /** Someone else answers a post or a comment: the platform's id of the new comment. */
  answer(fakes: Fakes, parentId: string, text: string): string;
  /** The platform ids of our replies the fake holds under a comment. */
  ourRepliesTo(fakes: Fakes, parentId: string): string[];
  /** The fake no longer holds this comment by someone else (its author deleted it). */
  remove(fakes: Fakes, id: string): void;
  holds(fakes: Fakes, id: string): boolean;
}

const organization = (system: System) =>
  `urn:li:organization:${system.linkedin.organizations[0]?.id ?? ''}`;

const CASES: CommentCase[] = [
  {
    platform: 'bluesky',
    connection: ({ bluesky }) => ({
      platform: 'bluesky',
      handle: bluesky.account.handle,
      app_password: bluesky.account.appPassword,
    }),
    answer: ({ bluesky }, parentId, text) => bluesky.addReply(parentId, text).uri,
    ourRepliesTo: ({ bluesky }, parentId) =>
      bluesky.posts
        .filter((post) => {
          const reply = post.record.reply as { parent?: { uri?: string } } | undefined;
          return reply?.parent?.uri === parentId;
        })
        .map((post) => post.uri),
    remove: ({ bluesky }, id) => {
      const at = bluesky.foreignPosts.findIndex((post) => post.uri === id);
      expect(at).toBeGreaterThanOrEqual(0);
      bluesky.foreignPosts.splice(at, 1);
    },
    holds: ({ bluesky }, id) =>
      [...bluesky.posts, ...bluesky.foreignPosts].some((post) => post.uri === id),
  },
  {
    // An organization's page: its comments are read with r_organization_social (a member's
    // posts need r_member_social, granted to approved apps only).
    platform: 'linkedin',
    connection: ({ system }) => ({
      platform: 'linkedin',
      display_name: 'linkedin comments',
      external_id: organization(system),
      access_token: 'linkedin-comments-token',
    }),
    answer: ({ system }, parentId, text) => system.linkedin.addComment(parentId, text).urn,
    ourRepliesTo: ({ system }, parentId) =>
      system.linkedin.comments
        .filter((c) => c.parent === parentId && c.actor === organization(system))
        .map((c) => c.urn),
    remove: ({ system }, id) => {
      const at = system.linkedin.comments.findIndex((comment) => comment.urn === id);
      expect(at).toBeGreaterThanOrEqual(0);
      system.linkedin.comments.splice(at, 1);
    },
    holds: ({ system }, id) => system.linkedin.comments.some((comment) => comment.urn === id),
  },
];

/** What the API lets one do to another's comment, and to our own reply, on both platforms. */
const OTHERS_CAN = { reply: true, hide: false, delete: false };
const OURS_CAN = { reply: true, hide: false, delete: true };

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

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
  return waitFor(
    `the comments of post ${postId}`,
    async () => {
      const got = await system.api.call<Listed>('GET', `/posts/${postId}/comments`);
      expect(got.status).toBe(200);
      const readAt = got.body.targets[0]?.read_at ?? null;
      const others = got.body.data.filter((c) => !c.mine);
      return readAt !== null && readAt !== lastRead && others.length >= count
        ? got.body.data
        : undefined;
    },
    30_000,
  );
}

const unreadIds = async (system: System, platform: string) => {
  const inbox = await system.api.call<{ data: CommentJson[] }>(
    'GET',
    `/inbox?unread=true&platform=${platform}&limit=500`,
  );
  expect(inbox.status, JSON.stringify(inbox.body)).toBe(200);
  return inbox.body.data.map((comment) => comment.id);
};

describe.each(modes)('bluesky and linkedin comments end to end, %s mode', (mode) => {
  let bluesky: FakeBluesky | undefined;
  const e2e = useSystem(mode, {
    prepare: async () => {
      bluesky = await startFakeBluesky();
      return {
        env: {
          BLUESKY_SERVICE_URL: bluesky.baseUrl,
          BLUESKY_RATE_LIMIT: 'off',
          METRICS_READ_INTERVAL_MS: '100',
          METRICS_MIN_REFRESH_S: '0',
        },
      };
    },
    release: () => bluesky?.close(),
  });
  const connections = new Map<string, string>();
  const fakes = (): Fakes => ({ system: e2e.get(), bluesky: bluesky as FakeBluesky });

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const { system } = fakes();
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/comments'),
      events: ['comment.received'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/comments', hook.body.data.secret);
    for (const { platform, connection } of CASES) {
      const created = await system.api.call<{ data: { id: string } }>(
        'POST',
        '/social-accounts',
        connection(fakes()),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  async function publish(system: System, platform: string): Promise<PostJson> {
    const created = await system.api.call<{ data: PostJson }>('POST', '/posts', {
      content: `What do you think? ${tag(platform)}`,
      social_account_ids: [connections.get(platform)],
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

  for (const scenario of CASES) {
    const { platform } = scenario;

    it(`${platform}: a comment and a nested reply read, announced once, in the inbox until read`, async (context) => {
      const system = e2e.orSkip(context);
      const post = await publish(system, platform);
      const target = post.post_targets[0];
      const top = scenario.answer(fakes(), target?.platform_post_id ?? '', 'Lovely post');
      const nested = scenario.answer(fakes(), top, 'I agree');
      const listed = await readComments(system, post.id, 2);
      const byPlatformId = (id: string) => listed.find((c) => c.platform_comment_id === id);
      const shape = {
        post_id: post.id,
        target_id: target?.id,
        social_account_id: connections.get(platform),
        platform,
        hidden: false,
        mine: false,
        read: false,
        sandbox: false,
        can: OTHERS_CAN,
      };
      expect(byPlatformId(top)).toMatchObject({ ...shape, parent_id: null, text: 'Lovely post' });
      expect(byPlatformId(nested)).toMatchObject({
        ...shape,
        parent_id: byPlatformId(top)?.id,
        text: 'I agree',
      });
      const ids = listed.map((comment) => comment.id);

      const announced = () => system.receiver.arrivalsFor(post.id, '/comments');
      await waitFor('comment.received', () => (announced().length >= 2 ? true : undefined));
      // Read again: the same comments are neither stored nor announced twice.
      expect(await readComments(system, post.id, 2)).toHaveLength(2);
      expect(
        announced()
          .map((arrival) => (arrival.payload.data as { comment_id: string }).comment_id)
          .sort(),
      ).toEqual([top, nested].sort());

      expect(await unreadIds(system, platform)).toEqual(expect.arrayContaining(ids));
      const marked = await system.api.call<{ data: { marked: number } }>('POST', '/inbox/read', {
        comment_ids: ids,
      });
      expect(marked.status).toBe(200);
      expect(marked.body.data.marked).toBe(2);
      const unread = await unreadIds(system, platform);
      expect(unread.filter((id) => ids.includes(id))).toEqual([]);
    }, 90_000);

    it(`${platform}: a reply posted once per key, deleted on the platform; hide and others' delete refused`, async (context) => {
      const system = e2e.orSkip(context);
      const post = await publish(system, platform);
      const fanId = scenario.answer(fakes(), post.post_targets[0]?.platform_post_id ?? '', 'Hi!');
      const [fan] = await readComments(system, post.id, 1);
      expect(fan?.platform_comment_id).toBe(fanId);
      const announced = () => system.receiver.arrivalsFor(post.id, '/comments');
      await waitFor('comment.received', () => (announced().length > 0 ? true : undefined));

      const key = `reply-${tag(platform)}`;
      const reply = () =>
        system.api.call<{ data: CommentJson }>(
          'POST',
          `/comments/${fan?.id}/replies`,
          { text: 'Thank you!' },
          { 'idempotency-key': key },
        );
      const first = await reply();
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      expect(first.body.data).toMatchObject({
        parent_id: fan?.id,
        text: 'Thank you!',
        mine: true,
        read: true,
        can: OURS_CAN,
      });
      const second = await reply();
      expect(second.status, JSON.stringify(second.body)).toBe(201);
      expect(second.body.data).toEqual(first.body.data);
      const ours = first.body.data.platform_comment_id;
      expect(scenario.ourRepliesTo(fakes(), fanId)).toEqual([ours]);

      const refused = async (method: string, path: string, body?: unknown) => {
        const answer = await system.api.call<ErrorJson>(method, path, body);
        expect(answer.status, JSON.stringify(answer.body)).toBe(422);
        expect(answer.body.error.code).toBe('unsupported');
      };
      await refused('POST', `/comments/${fan?.id}/hide`, { hidden: true });
      await refused('POST', `/comments/${first.body.data.id}/hide`, { hidden: true });
      await refused('DELETE', `/comments/${fan?.id}`);
      expect(scenario.holds(fakes(), fanId)).toBe(true);

      const deleted = await system.api.call('DELETE', `/comments/${first.body.data.id}`);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
      expect(scenario.holds(fakes(), ours)).toBe(false);
      const after = await system.api.call<{ data: CommentJson[] }>(
        'GET',
        `/posts/${post.id}/comments`,
      );
      expect(after.body.data.map((comment) => comment.platform_comment_id)).toEqual([fanId]);
      // Our own replies are not news: only the fan's comment was announced.
      expect(announced()).toHaveLength(1);
    }, 90_000);

    it(`${platform}: a reply to a comment deleted on the platform meanwhile is 409 comment_gone`, async (context) => {
      const system = e2e.orSkip(context);
      const post = await publish(system, platform);
      const fanId = scenario.answer(fakes(), post.post_targets[0]?.platform_post_id ?? '', 'Oops');
      const [fan] = await readComments(system, post.id, 1);
      scenario.remove(fakes(), fanId);
      const answer = await system.api.call<ErrorJson>(
        'POST',
        `/comments/${fan?.id}/replies`,
        { text: 'Too late' },
        { 'idempotency-key': `gone-${tag(platform)}` },
      );
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
      expect(answer.body.error.code).toBe('comment_gone');
      expect(scenario.ourRepliesTo(fakes(), fanId)).toEqual([]);
    }, 90_000);
  }
});
