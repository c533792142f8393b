import { type Platform, type PostDraft, validateCreatePost } from '@social-publisher/domain';
import { describe, expect, it } from 'vitest';
import { createPlatformRegistry, definePlatform, PLATFORM_DESCRIPTORS } from '../src/index.ts';
import { testConfig } from './helpers.ts';

describe('registry', () => {
  it('serves a publisher and the rules of every described platform, in the list order', () => {
    const registry = createPlatformRegistry(testConfig());
    expect(registry.names).toEqual(PLATFORM_DESCRIPTORS.map((descriptor) => descriptor.name));
    for (const platform of registry.names) {
      expect(registry.get(platform)?.platform).toBe(platform);
      expect(registry.rules(platform)?.name).toBe(platform);
    }
    expect(registry.get('myspace')).toBeUndefined();
    expect(registry.rules('myspace')).toBeUndefined();
  });

  it('creates a guarded media dispatcher when none is given', () => {
    const { mediaDispatcher: _ignored, ...config } = testConfig();
    expect(createPlatformRegistry(config).get('youtube')).toBeDefined();
  });

  it('hands a platform its settings with defaults filled and URL settings without trailing slash', () => {
    const seen: Record<string, string | undefined>[] = [];
    const acme = definePlatform({
      name: 'acme',
      label: 'Acme',
      media: {},
      settings: {
        apiBaseUrl: {
          env: 'ACME_API',
          kind: 'url',
          default: 'https://api.acme',
          description: 'API',
        },
        authBaseUrl: {
          env: 'ACME_AUTH',
          kind: 'url',
          default: 'https://auth.acme',
          description: 'Auth',
        },
        tokenBaseUrl: { env: 'ACME_TOKEN', kind: 'url', description: 'Token' },
        note: { env: 'ACME_NOTE', kind: 'string', description: 'Kept as given' },
      },
      createPublisher: (settings) => {
        seen.push({ ...settings });
        return {
          platform: 'acme',
          validate: () => [],
          publish: async () => ({ kind: 'published', platformPostId: '1', platformUrl: null }),
          resume: async () => ({ kind: 'published', platformPostId: '1', platformUrl: null }),
        };
      },
    });
    const config = testConfig();
    createPlatformRegistry(
      {
        ...config,
        settings: {
          acme: { apiBaseUrl: 'http://127.0.0.1:9/api//', authBaseUrl: '', note: 'ends/' },
        },
      },
      [acme],
    );
    expect(seen).toEqual([
      {
        apiBaseUrl: 'http://127.0.0.1:9/api',
        authBaseUrl: 'https://auth.acme',
        tokenBaseUrl: undefined,
        note: 'ends/',
      },
    ]);
  });

  it('builds every consent URL with one slash after a base URL given with a trailing slash', () => {
    const config = testConfig();
    const settings = Object.fromEntries(
      PLATFORM_DESCRIPTORS.map((descriptor) => [
        descriptor.name,
        {
          ...config.settings[descriptor.name],
          authBaseUrl: 'https://consent.example/',
          clientId: 'id',
          clientSecret: 'secret',
        },
      ]),
    );
    const registry = createPlatformRegistry({ ...config, settings });
    // Platforms connected by credentials (bluesky) have no consent page, and one with connect
    // fields has no consent host of its own (Mastodon: the instance).
    const consented = registry.names.filter(
      (name) => registry.credentials(name) === undefined && !registry.rules(name)?.connectFields,
    );
    for (const platform of consented) {
      const consent = registry.oauth(platform)?.authorizationUrl({
        state: 'state',
        redirectUri: 'https://app.example/cb',
        codeChallenge: 'challenge',
      });
      expect(consent, platform).toMatch(/^https:\/\/consent\.example\/[^/]/);
    }
  });
});

describe('validate', () => {
  const registry = createPlatformRegistry(testConfig());
  const validate = (platform: Platform, draft: Partial<PostDraft>) =>
    registry.get(platform)?.validate({ content: '', mediaUrls: [], platformOptions: {}, ...draft });
  const photo = (n: number) => `https://cdn.example.com/p${n}.jpg`;
  const clip = (n: number) => `https://cdn.example.com/v${n}.mp4`;

  it('tiktok: one kind of media, one video or up to 35 photos, caption lengths', () => {
    expect(validate('tiktok', { mediaUrls: [clip(1)], content: 'x'.repeat(2200) })).toEqual([]);
    expect(validate('tiktok', { mediaUrls: [photo(1), clip(1)] })).toEqual([
      { field: 'media_urls', message: 'tiktok cannot mix photos and videos in one post' },
    ]);
    expect(validate('tiktok', { mediaUrls: [clip(1), clip(2)] })?.[0]?.field).toBe('media_urls');
    expect(
      validate('tiktok', { mediaUrls: Array.from({ length: 36 }, (_, i) => photo(i)) }),
    ).toHaveLength(1);
    expect(validate('tiktok', { mediaUrls: [clip(1)], content: 'x'.repeat(2201) })).toEqual([
      { field: 'content', message: 'tiktok video captions are limited to 2200 characters' },
    ]);
    expect(validate('tiktok', { mediaUrls: [photo(1)], content: 'x'.repeat(4000) })).toEqual([]);
    expect(
      validate('tiktok', { mediaUrls: [photo(1)], content: 'x'.repeat(4001) })?.[0]?.field,
    ).toBe('content');
    expect(
      validate('tiktok', {
        mediaUrls: [clip(1)],
        platformOptions: { tiktok: { tiktokBrandContent: true, tiktokPrivacy: 'SELF_ONLY' } },
      }),
    ).toEqual([
      {
        field: 'platform_options.tiktok.tiktokPrivacy',
        message: 'branded content cannot be private (SELF_ONLY)',
      },
    ]);
  });

  it('instagram: caption 2200 characters, carousel up to 10 items', () => {
    expect(validate('instagram', { mediaUrls: [photo(1)], content: '😀'.repeat(2200) })).toEqual(
      [],
    );
    expect(validate('instagram', { mediaUrls: [photo(1)], content: 'x'.repeat(2201) })).toEqual([
      { field: 'content', message: 'instagram captions are limited to 2200 characters' },
    ]);
    expect(
      validate('instagram', { mediaUrls: Array.from({ length: 10 }, (_, i) => photo(i)) }),
    ).toEqual([]);
    expect(
      validate('instagram', { mediaUrls: Array.from({ length: 11 }, (_, i) => photo(i)) }),
    ).toEqual([{ field: 'media_urls', message: 'an instagram carousel takes 2 to 10 items' }]);
  });

  it('youtube: photos rejected exactly as the shared rule does; one video; description bytes', () => {
    const mediaUrls = [photo(1)];
    const mine = validate('youtube', { mediaUrls });
    const shared = validateCreatePost(
      { content: '', platforms: ['youtube'], media_urls: mediaUrls },
      { mode: 'now', now: new Date(), platforms: registry },
    );
    expect(mine).toEqual([
      { field: 'media_urls[0]', message: 'youtube does not accept photos; give a video URL' },
    ]);
    expect(shared).toEqual(expect.arrayContaining(mine ?? []));
    expect(validate('youtube', { mediaUrls: [clip(1)] })).toEqual([]);
    expect(validate('youtube', { mediaUrls: [clip(1), clip(2)] })).toEqual([
      { field: 'media_urls', message: 'youtube takes one video per post' },
    ]);
    expect(
      validate('youtube', { mediaUrls: [clip(1)], content: 'é'.repeat(2501) })?.[0]?.field,
    ).toBe('content');
  });

  it('content limits of the descriptors (twitter 280, linkedin 3000) apply to every post', () => {
    const rules = (content: string, platform: Platform) =>
      validateCreatePost(
        { content, platforms: [platform] },
        { mode: 'now', now: new Date(), platforms: registry },
      );
    expect(rules('x'.repeat(280), 'twitter')).toEqual([]);
    expect(rules('x'.repeat(281), 'twitter')).toEqual([
      { field: 'content', message: 'twitter posts are limited to 280 characters' },
    ]);
    expect(rules('x'.repeat(3001), 'linkedin')).toHaveLength(1);
  });
});
