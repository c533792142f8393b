import { describe, expect, it } from 'vitest';
import {
  type CreatePostInput,
  classifyMedia,
  isKnownPlatform,
  parseIsoInstant,
  platformChoices,
  platformsOf,
  validateContent,
  validateCreatePost,
  validateMediaUrls,
  validatePlatformContent,
  validatePlatformMedia,
  validatePlatformOptions,
  validateScheduledAt,
  validateTargets,
} from '../src/index.ts';
import { testCatalog } from './support.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const ID = '0190a5d2-7a3b-7c4d-8e5f-0123456789ab';
const fields = (problems: Array<{ field: string }>) => problems.map((p) => p.field);
const catalog = testCatalog();
const rulesOf = (...names: string[]) =>
  names.map((name) => {
    const rules = catalog.rules(name);
    if (!rules) throw new Error(`no test rules for ${name}`);
    return rules;
  });

describe('content', () => {
  it('is optional and may be empty', () => {
    expect(validateContent(undefined)).toEqual([]);
    expect(validateContent(null)).toEqual([]);
    expect(validateContent('')).toEqual([]);
  });

  it('allows 5000 characters, counted as code points, and not one more', () => {
    expect(validateContent('a'.repeat(5000))).toEqual([]);
    expect(validateContent('😀'.repeat(5000))).toEqual([]);
    expect(validateContent('a'.repeat(5001))).toEqual([
      { field: 'content', message: 'must be at most 5000 characters' },
    ]);
  });

  it('must be a string', () => {
    expect(validateContent(42)).toEqual([
      { field: 'content', message: 'must be a string, got number' },
    ]);
  });

  it("applies each target platform's own limit, counted as code points", () => {
    expect(validatePlatformContent('a'.repeat(280), rulesOf('twitter', 'linkedin'))).toEqual([]);
    expect(validatePlatformContent('😀'.repeat(280), rulesOf('twitter'))).toEqual([]);
    expect(validatePlatformContent('a'.repeat(281), rulesOf('twitter', 'linkedin'))).toEqual([
      { field: 'content', message: 'twitter posts are limited to 280 characters' },
    ]);
    expect(validatePlatformContent('a'.repeat(3001), rulesOf('linkedin', 'twitter'))).toEqual([
      { field: 'content', message: 'linkedin posts are limited to 3000 characters' },
      { field: 'content', message: 'twitter posts are limited to 280 characters' },
    ]);
    // A platform without a limit of its own, and content that is not a string, add nothing.
    expect(validatePlatformContent('a'.repeat(5000), rulesOf('facebook', 'tiktok'))).toEqual([]);
    expect(validatePlatformContent(42, rulesOf('twitter'))).toEqual([]);
  });
});

describe('targets', () => {
  it('accepts social_account_ids, platforms, or both', () => {
    expect(validateTargets({ social_account_ids: [ID] }, catalog)).toEqual([]);
    expect(validateTargets({ platforms: ['tiktok'] }, catalog)).toEqual([]);
    expect(validateTargets({ social_account_ids: [ID], platforms: ['youtube'] }, catalog)).toEqual(
      [],
    );
    expect(validateTargets({ social_account_ids: [], platforms: ['youtube'] }, catalog)).toEqual(
      [],
    );
  });

  it('requires at least one target', () => {
    for (const input of [{}, { social_account_ids: [] }, { platforms: [] }, { platforms: null }]) {
      expect(validateTargets(input, catalog)).toEqual([
        {
          field: 'social_account_ids',
          message: 'at least one target is required: give social_account_ids or platforms',
        },
      ]);
    }
  });

  it('names each bad id and platform', () => {
    const problems = validateTargets(
      {
        social_account_ids: [ID, 'nope', 7],
        platforms: ['tiktok', 'myspace'],
      },
      catalog,
    );
    expect(fields(problems)).toEqual([
      'social_account_ids[1]',
      'social_account_ids[2]',
      'platforms[1]',
    ]);
    expect(problems[0]?.message).toBe('must be a UUID');
    expect(problems[2]?.message).toBe(`must be one of ${catalog.names.join(', ')}`);
  });

  it('rejects non-array values', () => {
    expect(
      fields(validateTargets({ social_account_ids: ID, platforms: 'tiktok' }, catalog)),
    ).toEqual(['social_account_ids', 'platforms']);
  });

  it("knows exactly the catalog's platforms and lists them in its order", () => {
    for (const name of catalog.names) expect(isKnownPlatform(catalog, name)).toBe(true);
    for (const value of ['myspace', 'TikTok', '', 7, null, undefined, {}]) {
      expect(isKnownPlatform(catalog, value)).toBe(false);
    }
    expect(platformChoices(catalog)).toBe(
      'must be one of tiktok, instagram, youtube, twitter, linkedin, facebook',
    );
    const small = { names: ['b', 'a'], rules: catalog.rules };
    expect(platformChoices(small)).toBe('must be one of b, a');
  });

  it('platformsOf keeps the known platforms once each, in order', () => {
    expect(platformsOf(['youtube', 'myspace', 'tiktok', 'youtube', 7, 'tiktok'], catalog)).toEqual([
      'youtube',
      'tiktok',
    ]);
    expect(platformsOf('tiktok', catalog)).toEqual([]);
    expect(platformsOf(undefined, catalog)).toEqual([]);
  });
});

describe('parseIsoInstant', () => {
  it('parses complete date-times with a zone designator', () => {
    expect(parseIsoInstant('2026-03-01T10:00:00Z')?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(parseIsoInstant('2026-03-01T10:00Z')?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(parseIsoInstant('2026-03-01t10:00:00.123456z')?.toISOString()).toBe(
      '2026-03-01T10:00:00.123Z',
    );
    expect(parseIsoInstant('2026-03-01T10:00:00+02:00')?.toISOString()).toBe(
      '2026-03-01T08:00:00.000Z',
    );
    expect(parseIsoInstant('2026-03-01T10:00:00-0530')?.toISOString()).toBe(
      '2026-03-01T15:30:00.000Z',
    );
    expect(parseIsoInstant('2026-03-01T10:00:00+01')?.toISOString()).toBe(
      '2026-03-01T09:00:00.000Z',
    );
    expect(parseIsoInstant('2028-02-29T00:00:00Z')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(parseIsoInstant('0099-01-01T00:00:00Z')?.getUTCFullYear()).toBe(99);
  });

  it.each([
    '2026-13-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:60:00Z',
    '2026-01-01T10:00:60Z',
    '2026-01-01T10:00:00+24:00',
    '2026-01-01T10:00:00+01:60',
    '2026-01-01',
    '2026-01-01T10:00:00',
    '2026-01-01 10:00:00Z',
    'tomorrow',
    '',
    '1767225600000',
  ])('rejects %j', (text) => {
    expect(parseIsoInstant(text)).toBeNull();
  });
});

describe('scheduled_at', () => {
  it('is required in scheduled mode and must be strictly in the future', () => {
    expect(validateScheduledAt('2026-01-01T00:00:01Z', 'scheduled', NOW)).toEqual([]);
    expect(validateScheduledAt(undefined, 'scheduled', NOW)).toEqual([
      { field: 'scheduled_at', message: 'is required' },
    ]);
    expect(validateScheduledAt('2026-01-01T00:00:00Z', 'scheduled', NOW)).toEqual([
      { field: 'scheduled_at', message: 'must be in the future' },
    ]);
    expect(validateScheduledAt('2025-12-31T23:00:00-02:00', 'scheduled', NOW)).toEqual([]);
  });

  it('rejects malformed values with a hint', () => {
    for (const value of ['2026-13-01', '2026-06-01', 'garbage', '2026-06-01T10:00:00']) {
      const [problem] = validateScheduledAt(value, 'scheduled', NOW);
      expect(problem?.field).toBe('scheduled_at');
      expect(problem?.message).toMatch(/ISO 8601 date-time with a timezone/);
    }
    expect(validateScheduledAt(12, 'scheduled', NOW)[0]?.message).toBe(
      'must be an ISO 8601 string, got number',
    );
  });

  it('is not allowed when publishing now', () => {
    expect(validateScheduledAt(undefined, 'now', NOW)).toEqual([]);
    expect(validateScheduledAt(null, 'now', NOW)).toEqual([]);
    expect(validateScheduledAt('2030-01-01T00:00:00Z', 'now', NOW)[0]?.message).toMatch(
      /not allowed/,
    );
  });
});

describe('media', () => {
  it('classifies by the path extension only', () => {
    expect(classifyMedia('https://cdn.example.com/a/clip.MP4')).toBe('video');
    expect(classifyMedia('https://cdn.example.com/a/clip.webm?x=.jpg')).toBe('video');
    expect(classifyMedia('https://cdn.example.com/photo.jpeg#x.mp4')).toBe('photo');
    expect(classifyMedia('https://cdn.example.com/p.heic')).toBe('photo');
    expect(classifyMedia('https://cdn.example.com/media/123')).toBe('unknown');
    expect(classifyMedia('https://cdn.example.com/file.pdf')).toBe('unknown');
    expect(classifyMedia('https://cdn.example.com/dir.mp4/file')).toBe('unknown');
    expect(classifyMedia('not a url.mp4')).toBe('unknown');
  });

  it('accepts up to 20 http(s) URLs', () => {
    expect(validateMediaUrls(undefined)).toEqual([]);
    expect(validateMediaUrls([])).toEqual([]);
    expect(validateMediaUrls(['http://a.example/x.mp4', 'https://b.example/y.png'])).toEqual([]);
    const twentyOne = Array.from({ length: 21 }, (_, i) => `https://a.example/${i}.png`);
    expect(validateMediaUrls(twentyOne)).toEqual([
      { field: 'media_urls', message: 'must hold at most 20 URLs' },
    ]);
  });

  it('names each bad URL', () => {
    const long = `https://a.example/${'x'.repeat(2048)}`;
    const problems = validateMediaUrls([
      'https://ok.example/a.png',
      'ftp://a.example/x',
      'nope',
      5,
      long,
    ]);
    expect(problems).toEqual([
      { field: 'media_urls[1]', message: 'must be an http or https URL' },
      { field: 'media_urls[2]', message: 'is not a valid URL' },
      { field: 'media_urls[3]', message: 'must be a string, got number' },
      { field: 'media_urls[4]', message: 'must be at most 2048 characters' },
    ]);
    expect(validateMediaUrls('https://a.example/x.png')).toEqual([
      { field: 'media_urls', message: 'must be an array of URLs, got string' },
    ]);
  });

  it('enforces what each platform needs', () => {
    expect(validatePlatformMedia(rulesOf('twitter', 'linkedin', 'facebook'), [])).toEqual([]);
    expect(validatePlatformMedia(rulesOf('tiktok'), [])).toEqual([
      { field: 'media_urls', message: 'tiktok requires a video or photo URL' },
    ]);
    expect(validatePlatformMedia(rulesOf('instagram'), [])).toEqual([
      { field: 'media_urls', message: 'instagram requires at least one media URL' },
    ]);
    expect(validatePlatformMedia(rulesOf('youtube'), [])).toEqual([
      { field: 'media_urls', message: 'youtube requires a video URL' },
    ]);
    expect(
      validatePlatformMedia(rulesOf('tiktok', 'instagram'), ['https://a.example/p.png']),
    ).toEqual([]);
    expect(validatePlatformMedia(rulesOf('tiktok', 'youtube', 'tiktok'), [])).toEqual([
      { field: 'media_urls', message: 'tiktok requires a video or photo URL' },
      { field: 'media_urls', message: 'youtube requires a video URL' },
    ]);
  });

  it('youtube rejects photos but accepts videos and unknown media', () => {
    expect(validatePlatformMedia(rulesOf('youtube'), ['https://a.example/v.mov'])).toEqual([]);
    expect(validatePlatformMedia(rulesOf('youtube'), ['https://a.example/media/42'])).toEqual([]);
    expect(
      validatePlatformMedia(rulesOf('youtube'), [
        'https://a.example/v.mp4',
        'https://a.example/p.png',
      ]),
    ).toEqual([
      { field: 'media_urls[1]', message: 'youtube does not accept photos; give a video URL' },
    ]);
  });
});

describe('platform_options', () => {
  it('must be an object keyed by known platforms holding objects', () => {
    expect(validatePlatformOptions(undefined, [], catalog)).toEqual([]);
    expect(validatePlatformOptions({ twitter: { anything: 1 } }, [], catalog)).toEqual([]);
    expect(validatePlatformOptions('x', [], catalog)).toEqual([
      {
        field: 'platform_options',
        message: 'must be an object keyed by platform name, got string',
      },
    ]);
    expect(validatePlatformOptions({ myspace: {}, tiktok: 'x' }, [], catalog)).toEqual([
      {
        field: 'platform_options.myspace',
        message:
          'is not a known platform (tiktok, instagram, youtube, twitter, linkedin, facebook)',
      },
      { field: 'platform_options.tiktok', message: 'must be an object, got string' },
    ]);
  });

  it("applies each platform's own options rule", () => {
    for (const privacyStatus of ['private', 'public', 'unlisted']) {
      expect(validatePlatformOptions({ youtube: { privacyStatus } }, [], catalog)).toEqual([]);
    }
    expect(validatePlatformOptions({ youtube: { privacyStatus: 'secret' } }, [], catalog)).toEqual([
      {
        field: 'platform_options.youtube.privacyStatus',
        message: 'must be one of private, public, unlisted',
      },
    ]);
  });

  it("gives a platform's options rule the post's media", () => {
    const problems = validatePlatformOptions(
      { tiktok: { tiktokIsAigc: true } },
      ['https://a.example/p.png'],
      catalog,
    );
    expect(fields(problems)).toEqual(['platform_options.tiktok.tiktokIsAigc']);
  });
});

describe('validateCreatePost', () => {
  it('accepts a valid immediate and a valid scheduled post', () => {
    const input: CreatePostInput = {
      content: 'hello',
      platforms: ['tiktok'],
      media_urls: ['https://a.example/v.mp4'],
      platform_options: { tiktok: { tiktokPrivacy: 'PUBLIC_TO_EVERYONE' } },
    };
    expect(validateCreatePost(input, { mode: 'now', now: NOW, platforms: catalog })).toEqual([]);
    expect(
      validateCreatePost(
        { ...input, scheduled_at: '2026-02-01T00:00:00Z' },
        { mode: 'scheduled', now: NOW, platforms: catalog },
      ),
    ).toEqual([]);
  });

  it('reports every problem at once', () => {
    const problems = validateCreatePost(
      {
        content: 'x'.repeat(5001),
        platforms: ['youtube', 'tiktok', 'nope'],
        media_urls: ['https://a.example/p.png', 'file:///etc/passwd'],
        platform_options: { tiktok: { tiktokAllowDuet: 'yes' } },
        scheduled_at: '2020-01-01T00:00:00Z',
      },
      { mode: 'scheduled', now: NOW, platforms: catalog },
    );
    expect(fields(problems)).toEqual([
      'content',
      'platforms[2]',
      'media_urls[1]',
      'media_urls[0]',
      'platform_options.tiktok.tiktokAllowDuet',
      'scheduled_at',
    ]);
  });

  it("applies a target platform's rules once, however often it is named", () => {
    expect(
      validateCreatePost(
        { platforms: ['youtube', 'youtube'], media_urls: ['https://a.example/p.png'] },
        { mode: 'now', now: NOW, platforms: catalog },
      ),
    ).toEqual([
      { field: 'media_urls[0]', message: 'youtube does not accept photos; give a video URL' },
    ]);
    expect(
      validateCreatePost(
        { content: 'a'.repeat(281), platforms: ['tiktok'] },
        {
          mode: 'now',
          now: NOW,
          platforms: catalog,
          targetPlatforms: ['twitter', 'tiktok', 'tiktok', 'twitter'],
        },
      ),
    ).toEqual([
      { field: 'content', message: 'twitter posts are limited to 280 characters' },
      { field: 'media_urls', message: 'tiktok requires a video or photo URL' },
    ]);
  });

  it('ignores target platforms the catalog does not know', () => {
    expect(
      validateCreatePost(
        { social_account_ids: [ID] },
        { mode: 'now', now: NOW, platforms: catalog, targetPlatforms: ['myspace'] },
      ),
    ).toEqual([]);
  });

  it('uses the resolved target platforms when given', () => {
    const input = { social_account_ids: [ID] };
    expect(validateCreatePost(input, { mode: 'now', now: NOW, platforms: catalog })).toEqual([]);
    expect(
      fields(
        validateCreatePost(input, {
          mode: 'now',
          now: NOW,
          platforms: catalog,
          targetPlatforms: ['instagram'],
        }),
      ),
    ).toEqual(['media_urls']);
  });

  it('never throws on odd values', () => {
    const odd: CreatePostInput = {
      content: {},
      social_account_ids: [null],
      platforms: [{}],
      media_urls: [[], {}],
      platform_options: [],
      scheduled_at: {},
    };
    expect(
      validateCreatePost(odd, { mode: 'scheduled', now: NOW, platforms: catalog }).length,
    ).toBeGreaterThan(0);
  });
});
