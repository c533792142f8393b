// The real platforms' rules, as their descriptors declare them and the domain applies them;
// and a platform declared in this test only, served like the others.
import {
  type CoreDeps,
  createPost,
  type Problem,
  type PublishRequest,
  processPublishJob,
  validateConnectInput,
  validateCreatePost,
} from '@social-publisher/domain';
import { createTestDeps, seedConnection, seedUser } from '@social-publisher/domain/testing';
import { describe, expect, it } from 'vitest';
import { createPlatformRegistry, definePlatform, PLATFORM_DESCRIPTORS } from '../src/index.ts';
import { validateTiktokOptions } from '../src/tiktok/options.ts';
import { validateYoutubeOptions } from '../src/youtube/options.ts';
import { testConfig } from './helpers.ts';

const registry = createPlatformRegistry(testConfig());
const NOW = new Date('2026-01-01T00:00:00Z');
const fields = (problems: Array<{ field: string }>) => problems.map((p) => p.field);
const check = (input: Parameters<typeof validateCreatePost>[0]) =>
  validateCreatePost(input, { mode: 'now', now: NOW, platforms: registry });

describe('media rules', () => {
  it('tiktok, instagram and youtube require media; the others do not', () => {
    expect(check({ platforms: ['twitter', 'linkedin', 'facebook'] })).toEqual([]);
    expect(check({ platforms: ['tiktok'] })).toEqual([
      { field: 'media_urls', message: 'tiktok requires a video or photo URL' },
    ]);
    expect(check({ platforms: ['instagram'] })).toEqual([
      { field: 'media_urls', message: 'instagram requires at least one media URL' },
    ]);
    expect(check({ platforms: ['youtube'] })).toEqual([
      { field: 'media_urls', message: 'youtube requires a video URL' },
    ]);
    expect(
      check({ platforms: ['tiktok', 'instagram'], media_urls: ['https://a.example/p.png'] }),
    ).toEqual([]);
  });

  it('youtube refuses photos but accepts videos and unknown media', () => {
    expect(check({ platforms: ['youtube'], media_urls: ['https://a.example/v.mov'] })).toEqual([]);
    expect(check({ platforms: ['youtube'], media_urls: ['https://a.example/media/42'] })).toEqual(
      [],
    );
    expect(
      check({
        platforms: ['youtube'],
        media_urls: ['https://a.example/v.mp4', 'https://a.example/p.png'],
      }),
    ).toEqual([
      { field: 'media_urls[1]', message: 'youtube does not accept photos; give a video URL' },
    ]);
  });
});

describe('tiktok options', () => {
  const video = ['https://a.example/v.mp4'];
  const photos = ['https://a.example/1.jpg', 'https://a.example/2.png'];

  it('accepts every documented option with the right type', () => {
    expect(
      validateTiktokOptions(
        {
          tiktokPrivacy: 'SELF_ONLY',
          tiktokIsDraft: false,
          tiktokAllowComments: true,
          tiktokAllowDuet: true,
          tiktokAllowStitch: true,
          tiktokBrandOrganic: false,
          tiktokBrandContent: false,
          tiktokAutoAddMusic: true,
          tiktokIsAigc: true,
        },
        video,
      ),
    ).toEqual([]);
    expect(validateTiktokOptions(undefined)).toEqual([]);
    expect(validateTiktokOptions({})).toEqual([]);
  });

  it('rejects unknown keys, bad privacy and non-booleans, all at once', () => {
    expect(
      validateTiktokOptions({
        tiktokPrivacy: 'FRIENDS',
        tiktokIsDraft: 'yes',
        tiktokAutoAddMusic: 1,
        privacy: 'x',
      }),
    ).toEqual([
      { field: 'platform_options.tiktok.privacy', message: 'is not a known TikTok option' },
      {
        field: 'platform_options.tiktok.tiktokPrivacy',
        message:
          'must be one of PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY',
      },
      { field: 'platform_options.tiktok.tiktokIsDraft', message: 'must be a boolean, got string' },
      {
        field: 'platform_options.tiktok.tiktokAutoAddMusic',
        message: 'must be a boolean, got number',
      },
    ]);
    expect(validateTiktokOptions([])).toEqual([
      { field: 'platform_options.tiktok', message: 'must be an object, got array' },
    ]);
  });

  it('turning on duet, stitch or AIGC is rejected when all media are photos', () => {
    const options = { tiktokAllowDuet: true, tiktokAllowStitch: true, tiktokIsAigc: true };
    expect(fields(validateTiktokOptions(options, photos))).toEqual([
      'platform_options.tiktok.tiktokAllowDuet',
      'platform_options.tiktok.tiktokAllowStitch',
      'platform_options.tiktok.tiktokIsAigc',
    ]);
    expect(validateTiktokOptions({ tiktokAllowDuet: false, tiktokIsAigc: false }, photos)).toEqual(
      [],
    );
    expect(validateTiktokOptions(options, [...photos, ...video])).toEqual([]);
    expect(validateTiktokOptions(options, ['https://a.example/media/1'])).toEqual([]);
  });

  it('apply through the post rules, with the post media', () => {
    expect(
      fields(
        check({
          platforms: ['tiktok'],
          media_urls: ['https://a.example/p.png'],
          platform_options: { tiktok: { tiktokIsAigc: true } },
        }),
      ),
    ).toEqual(['platform_options.tiktok.tiktokIsAigc']);
  });
});

describe('youtube options', () => {
  it('checks privacyStatus only', () => {
    for (const privacyStatus of ['private', 'public', 'unlisted']) {
      expect(validateYoutubeOptions({ privacyStatus, tags: ['x'] })).toEqual([]);
    }
    expect(
      check({
        platforms: ['youtube'],
        media_urls: ['https://a.example/v.mp4'],
        platform_options: { youtube: { privacyStatus: 'secret' } },
      }),
    ).toEqual([
      {
        field: 'platform_options.youtube.privacyStatus',
        message: 'must be one of private, public, unlisted',
      },
    ]);
  });
});

describe('sandbox_outcome', () => {
  it('is accepted for every platform and checked by the shared rules', () => {
    for (const platform of registry.names) {
      expect(
        check({
          platforms: ['facebook'],
          platform_options: { [platform]: { sandbox_outcome: 'transient' } },
        }),
        platform,
      ).toEqual([]);
    }
    expect(
      check({
        platforms: ['facebook'],
        platform_options: { tiktok: { sandbox_outcome: 'maybe' } },
      }),
    ).toEqual([
      {
        field: 'platform_options.tiktok.sandbox_outcome',
        message: 'must be one of published, failed, transient (sandbox connections only)',
      },
    ]);
  });
});

describe('a platform declared in this test only', () => {
  const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
  const published: PublishRequest[] = [];
  const acme = definePlatform({
    name: 'acme',
    label: 'Acme',
    media: { requiredMessage: 'acme requires at least one image or video' },
    contentMaxLength: 500,
    options: {
      schema: {
        type: 'object',
        properties: { visibility: { enum: [...VISIBILITIES] } },
        additionalProperties: false,
      },
      validate: (options) => {
        const problems: Problem[] = [];
        for (const [key, value] of Object.entries(options)) {
          const field = `platform_options.acme.${key}`;
          if (key !== 'visibility') {
            problems.push({ field, message: 'is not a known Acme option' });
          } else if (!(VISIBILITIES as readonly unknown[]).includes(value)) {
            problems.push({ field, message: `must be one of ${VISIBILITIES.join(', ')}` });
          }
        }
        return problems;
      },
    },
    settings: {},
    createPublisher: () => ({
      platform: 'acme',
      validate: () => [],
      publish: async (request) => {
        published.push(request);
        return {
          kind: 'published',
          platformPostId: `toot-${published.length}`,
          platformUrl: `https://acme.example/@us/${published.length}`,
        };
      },
      resume: async () => ({ kind: 'published', platformPostId: 'toot-0', platformUrl: null }),
    }),
  });
  const withAcme = createPlatformRegistry(testConfig(), [...PLATFORM_DESCRIPTORS, acme]);
  const checkWith = (input: Parameters<typeof validateCreatePost>[0]) =>
    validateCreatePost(input, { mode: 'now', now: NOW, platforms: withAcme });
  const IMAGE = 'https://cdn.example.com/a.png';

  it('is listed after the built-in platforms, and only in the registry given it', () => {
    expect(withAcme.names).toEqual([...registry.names, 'acme']);
    expect(registry.names).not.toContain('acme');
    expect(check({ platforms: ['acme'], media_urls: [IMAGE] })).toEqual([
      { field: 'platforms[0]', message: `must be one of ${registry.names.join(', ')}` },
    ]);
  });

  it('is served by the registry: its rules, its publisher, no OAuth', () => {
    expect(withAcme.rules('acme')).toBe(acme.rules);
    expect(withAcme.rules('acme')).toMatchObject({
      name: 'acme',
      media: { requiredMessage: 'acme requires at least one image or video' },
      contentMaxLength: 500,
      optionsSchema: { properties: { visibility: { enum: [...VISIBILITIES] } } },
    });
    expect(withAcme.get('acme')?.platform).toBe('acme');
    expect(withAcme.oauth('acme')).toBeUndefined();
    // The built-in platforms are served as before.
    for (const name of registry.names) expect(withAcme.get(name)?.platform).toBe(name);
  });

  it('accepts a valid post and a connection to it', () => {
    expect(
      checkWith({
        content: 'x'.repeat(500),
        platforms: ['acme'],
        media_urls: [IMAGE, 'https://cdn.example.com/v.mp4'],
        platform_options: { acme: { visibility: 'unlisted' } },
      }),
    ).toEqual([]);
    expect(checkWith({ platforms: ['acme', 'twitter'], media_urls: [IMAGE] })).toEqual([]);
    expect(
      validateConnectInput({ platform: 'acme', externalId: '42', accessToken: 'tok' }, withAcme),
    ).toEqual([]);
  });

  it('refuses bad posts with its own rules and messages, all at once', () => {
    expect(checkWith({ platforms: ['acme'] })).toEqual([
      { field: 'media_urls', message: 'acme requires at least one image or video' },
    ]);
    expect(
      checkWith({
        content: 'x'.repeat(501),
        platforms: ['acme'],
        platform_options: { acme: { visibility: 'followers', boost: true } },
      }),
    ).toEqual([
      { field: 'content', message: 'acme posts are limited to 500 characters' },
      { field: 'media_urls', message: 'acme requires at least one image or video' },
      {
        field: 'platform_options.acme.visibility',
        message: 'must be one of public, unlisted, private, direct',
      },
      { field: 'platform_options.acme.boost', message: 'is not a known Acme option' },
    ]);
    expect(checkWith({ platforms: ['twitter'], platform_options: { acme: 'public' } })).toEqual([
      { field: 'platform_options.acme', message: 'must be an object, got string' },
    ]);
  });

  it('goes through the use cases: a post to it is created and published by its publisher', async () => {
    const deps: CoreDeps = { ...createTestDeps({ now: NOW }), platforms: withAcme };
    const alice = await seedUser(deps, 'alice@example.com');
    const connection = await seedConnection(deps, alice.user.id, 'acme');

    const refused = await createPost(deps, alice.ctx, { platforms: ['acme'] }, 'now');
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'validation_failed',
        details: [{ field: 'media_urls', message: 'acme requires at least one image or video' }],
      },
    });

    const created = await createPost(
      deps,
      alice.ctx,
      {
        content: 'Hello fediverse',
        social_account_ids: [connection.id],
        media_urls: [IMAGE],
        platform_options: { acme: { visibility: 'public' } },
      },
      'now',
    );
    if (!created.ok) throw new Error(created.error.message);
    const signal = new AbortController().signal;
    expect(
      await processPublishJob(deps, created.value.id, {
        attempt: 1,
        maxAttempts: 3,
        waits: 0,
        signal,
      }),
    ).toEqual({ kind: 'done' });
    expect(published.map((request) => request.post.id)).toEqual([created.value.id]);
    expect(await deps.repos.posts.findById(created.value.id)).toMatchObject({
      status: 'published',
      targets: [
        {
          platform: 'acme',
          socialAccountId: connection.id,
          status: 'published',
          platformPostId: 'toot-1',
          platformUrl: 'https://acme.example/@us/1',
        },
      ],
    });
  });
});
