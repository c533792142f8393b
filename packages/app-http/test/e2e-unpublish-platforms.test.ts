/**
 * Each platform's delete end to end, in both modes: a post published through the real publisher
 * to the platform's fake, then POST /posts/:id/unpublish: the worker's remover deletes it there
 * (the fake no longer holds it), the target ends `removed`, and `post.unpublished` arrives.
 * X has its own file (threads, repeated asks, unsupported platforms): e2e-unpublish.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PINTEREST_BOARD_ID } from '../../testkit/src/index.ts';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface TargetJson {
  platform: string;
  status: string;
  platform_post_id: string | null;
}
interface PostJson {
  id: string;
  status: string;
  post_targets: TargetJson[];
}

interface DeleteCase {
  platform: string;
  /** A connection the platform's fake accepts (bring-your-own token). */
  connection(system: System): { external_id: string; access_token: string };
  media?: 'image' | 'video';
  options?: Record<string, Record<string, unknown>>;
  /** Whether the fake still holds the post the target names. */
  holds(system: System, platformPostId: string): boolean;
}

const CASES: DeleteCase[] = [
  {
    platform: 'facebook',
    connection: (system) => ({
      external_id: system.facebook.pages[0]?.id ?? '',
      access_token: 'facebook-unpublish-token',
    }),
    holds: (system, id) => system.facebook.posts.some((post) => post.id === id),
  },
  {
    platform: 'linkedin',
    connection: (system) => ({
      external_id: `urn:li:person:${system.linkedin.member.sub}`,
      access_token: 'linkedin-unpublish-token',
    }),
    holds: (system, id) => system.linkedin.posts.some((post) => post.urn === id),
  },
  {
    platform: 'pinterest',
    connection: (system) => ({
      external_id: system.pinterest.user.id,
      access_token: 'pinterest-unpublish-token',
    }),
    media: 'image',
    options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
    holds: (system, id) => system.pinterest.pins.some((pin) => pin.id === id),
  },
  {
    platform: 'threads',
    connection: (system) => ({
      external_id: system.threads.profile.id,
      access_token: 'threads-unpublish-token',
    }),
    holds: (system, id) => system.threads.posts.some((post) => post.id === id),
  },
  {
    platform: 'youtube',
    connection: () => ({ external_id: 'UC-unpublish-channel', access_token: 'youtube-unpublish' }),
    media: 'video',
    holds: (system, id) => !system.youtube.statistics.isGone(id),
  },
];

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('each platform takes its post down, %s mode', (mode) => {
  const e2e = useSystem(mode);
  const connections = new Map<string, string>();

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/platform-deletes'),
      events: ['post.unpublished'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/platform-deletes', hook.body.data.secret);
    for (const { platform, connection } of CASES) {
      const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        display_name: `${platform} unpublish`,
        ...connection(system),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  for (const { platform, media, options, holds } of CASES) {
    it(`${platform}: published, unpublished, gone from the platform, post.unpublished`, async (context) => {
      const system = e2e.orSkip(context);
      const { api } = system;
      const label = tag(platform);
      const mediaUrls =
        media === undefined
          ? []
          : [system.media.url(`${label}.${media === 'image' ? 'jpg' : 'mp4'}`, 50_000)];
      const created = await api.call<{ data: PostJson }>('POST', '/posts', {
        content: `Taken down later ${label}`,
        social_account_ids: [connections.get(platform)],
        media_urls: mediaUrls,
        ...(options ? { platform_options: options } : {}),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.data.id;
      const read = async () =>
        (await api.call<{ data: PostJson }>('GET', `/posts/${id}`)).body.data;
      const published = await waitFor(
        `the ${platform} post to be published`,
        async () => {
          const post = await read();
          return ['published', 'failed', 'partial'].includes(post.status) ? post : undefined;
        },
        30_000,
      );
      expect(published.status, JSON.stringify(published.post_targets)).toBe('published');
      const platformPostId = String(published.post_targets[0]?.platform_post_id);
      expect(holds(system, platformPostId)).toBe(true);

      const asked = await api.call('POST', `/posts/${id}/unpublish`);
      expect(asked.status, JSON.stringify(asked.body)).toBe(202);
      const arrival = await waitFor(
        'post.unpublished',
        () => system.receiver.arrivalsFor(id, '/platform-deletes')[0],
        30_000,
      );
      expect(arrival.payload.data).toEqual({ removed: 1, failed: 0, unsupported: 0, total: 1 });
      expect((await read()).post_targets[0]?.status).toBe('removed');
      expect(holds(system, platformPostId)).toBe(false);
    }, 60_000);
  }
});
