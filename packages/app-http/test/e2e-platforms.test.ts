/**
 * The real X, LinkedIn, Facebook, Pinterest and Threads publishers end to end, in both modes:
 * HTTP -> worker -> the platform's fake -> a signed post.published webhook; GET /posts/:id shows
 * the id and URL the platform handed out. Text, image and video to each (Pinterest takes no
 * text-only Pin).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PINTEREST_BOARD_ID } from '../../testkit/src/index.ts';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface TargetJson {
  platform: string;
  status: string;
  platform_post_id: string | null;
  platform_url: string | null;
  error_code: string | null;
  error_message: string | null;
}
interface PostJson {
  id: string;
  status: string;
  post_targets: TargetJson[];
}

type Kind = 'text' | 'image' | 'video';

interface PlatformCase {
  platform: string;
  /** A connection the platform's fake accepts (bring-your-own token). */
  connection(system: System): { external_id: string; access_token: string };
  /** What the fake recorded for the post with this content: its id and public URL. */
  created(system: System, content: string): { id: string; url: string } | undefined;
  /** The kinds of post it takes (default all three). */
  kinds?: readonly Kind[];
  /** `platform_options` every post to it needs. */
  options?: Record<string, Record<string, unknown>>;
}

const CASES: PlatformCase[] = [
  {
    platform: 'facebook',
    connection: (system) => ({
      external_id: system.facebook.pages[0]?.id ?? '',
      access_token: 'facebook-page-e2e-token',
    }),
    created: (system, content) => {
      const post = system.facebook.posts.find((candidate) => candidate.message === content);
      // A video's public id is the video's; other posts are `{page}_{post}`.
      const id = post && (post.videoId ?? post.id);
      return id ? { id, url: `https://www.facebook.com/${id}` } : undefined;
    },
  },
  {
    platform: 'twitter',
    connection: (system) => ({ external_id: system.x.user.id, access_token: 'x-e2e-token' }),
    created: (system, content) => {
      const tweet = system.x.tweets.find((candidate) => candidate.text === content);
      return tweet && { id: tweet.id, url: `https://x.com/i/web/status/${tweet.id}` };
    },
  },
  {
    platform: 'linkedin',
    connection: (system) => ({
      external_id: `urn:li:person:${system.linkedin.member.sub}`,
      access_token: 'linkedin-e2e-token',
    }),
    created: (system, content) => {
      const post = system.linkedin.posts.find((candidate) => candidate.commentary === content);
      return post && { id: post.urn, url: `https://www.linkedin.com/feed/update/${post.urn}` };
    },
  },
  {
    platform: 'pinterest',
    connection: (system) => ({
      external_id: system.pinterest.user.id,
      access_token: 'pinterest-e2e-token',
    }),
    created: (system, content) => {
      const pin = system.pinterest.pins.find((candidate) => candidate.description === content);
      return pin && { id: pin.id, url: `https://www.pinterest.com/pin/${pin.id}/` };
    },
    kinds: ['image', 'video'],
    options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
  },
  {
    platform: 'threads',
    connection: (system) => ({
      external_id: system.threads.profile.id,
      access_token: 'threads-e2e-token',
    }),
    created: (system, content) => {
      const post = system.threads.posts.find((candidate) => candidate.text === content);
      return post && { id: post.id, url: post.permalink };
    },
  },
];

const MEDIA: Record<Kind, (system: System, tag: string) => string[]> = {
  text: () => [],
  image: (system, tag) => [system.media.url(`${tag}.jpg`, 40_000)],
  video: (system, tag) => [system.media.url(`${tag}.mp4`, 300_000)],
};

let sequence = 0;
const uniqueTag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;

const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('real publishers end to end, %s mode', (mode) => {
  const e2e = useSystem(mode);
  const connections = new Map<string, string>();
  let hookSecretRegistered = false;

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
      url: system.receiver.url('/published'),
      events: ['post.published'],
    });
    expect(hook.status).toBe(201);
    system.receiver.register('/published', hook.body.data.secret);
    hookSecretRegistered = true;
    for (const { platform, connection } of CASES) {
      const created = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
        platform,
        display_name: `${platform} e2e`,
        ...connection(system),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      connections.set(platform, created.body.data.id);
    }
  }, 60_000);

  it('pinterest: bad input is a 400 naming the option; a sandbox connection publishes without calling Pinterest', async (context) => {
    const system = e2e.orSkip(context);
    const { api, media, pinterest } = system;
    const pinterestId = connections.get('pinterest');
    const image = [media.url('bad-input.jpg', 1_000)];
    const cases: Array<[unknown, string]> = [
      [undefined, 'platform_options.pinterest.board_id'],
      [{ pinterest: { board_id: 549755885175 } }, 'board_id'],
      [{ pinterest: { board_id: PINTEREST_BOARD_ID, title: 't'.repeat(101) } }, 'title'],
      [{ pinterest: { board_id: PINTEREST_BOARD_ID, pinned: true } }, 'pinned'],
    ];
    for (const [options, field] of cases) {
      const refused = await api.call<{ error: { code: string; details?: unknown[] } }>(
        'POST',
        '/posts',
        {
          content: 'bad input',
          social_account_ids: [pinterestId],
          media_urls: image,
          ...(options === undefined ? {} : { platform_options: options }),
        },
      );
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.error.code).toBe('validation_failed');
      expect(JSON.stringify(refused.body.error.details)).toContain(field);
    }
    const longer = await api.call<{ error: { code: string } }>('POST', '/posts', {
      content: 'x'.repeat(501),
      social_account_ids: [pinterestId],
      media_urls: image,
      platform_options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
    });
    expect(longer.status).toBe(400);

    const sandbox = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'pinterest',
      sandbox: true,
      display_name: 'Pinterest demo',
    });
    expect(sandbox.status, JSON.stringify(sandbox.body)).toBe(201);
    const requestsBefore = pinterest.requests.length;
    const post = await api.call<{ data: PostJson }>('POST', '/posts', {
      content: 'A sandbox Pin',
      social_account_ids: [sandbox.body.data.id],
      media_urls: image,
      platform_options: { pinterest: { board_id: PINTEREST_BOARD_ID } },
    });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    const done = await waitFor('the sandbox Pin', async () => {
      const got = await api.call<{ data: PostJson }>('GET', `/posts/${post.body.data.id}`);
      return got.body.data.status === 'published' ? got.body.data : undefined;
    });
    expect(done.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);
    expect(pinterest.requests.length).toBe(requestsBefore);
  }, 30_000);

  for (const { platform, created, kinds, options } of CASES) {
    for (const kind of kinds ?? (['text', 'image', 'video'] as const)) {
      it(`${platform}: ${kind} post published, its platform id and URL in GET /posts/:id, a signed webhook`, async (context) => {
        const system = e2e.orSkip(context);
        expect(hookSecretRegistered).toBe(true);
        const { api, receiver } = system;
        const tag = uniqueTag(`${platform}-${kind}`);
        const content = `Release notes ${tag}`;
        const response = await api.call<{ data: PostJson }>('POST', '/posts', {
          content,
          social_account_ids: [connections.get(platform)],
          media_urls: MEDIA[kind](system, tag),
          ...(options ? { platform_options: options } : {}),
        });
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        const id = response.body.data.id;
        const post = await waitFor(
          `${platform} ${kind} post to end`,
          async () => {
            const got = await api.call<{ data: PostJson }>('GET', `/posts/${id}`);
            return ['published', 'failed', 'partial'].includes(got.body.data.status)
              ? got.body.data
              : undefined;
          },
          20_000,
        );
        const target = post.post_targets[0];
        expect(post.status, JSON.stringify(target)).toBe('published');
        const record = created(system, content);
        expect(record).toBeDefined();
        expect(target).toMatchObject({
          status: 'published',
          platform_post_id: record?.id,
          platform_url: record?.url,
        });
        const arrivals = await waitFor('the post.published webhook', () => {
          const found = receiver.arrivalsFor(id, '/published');
          return found.length > 0 ? found : undefined;
        });
        expect(arrivals[0]?.event).toBe('post.published');
        expect(receiver.rejected).toEqual([]);
      }, 30_000);
    }
  }
});
