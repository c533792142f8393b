// Adding a platform is one folder and one line in adapter-platforms' list: here a platform
// described in this test only reaches validation, the HTTP schema, OpenAPI and the registry
// without any other file knowing it.
import {
  createPlatformRegistry,
  definePlatform,
  PLATFORM_DESCRIPTORS,
} from '@social-publisher/adapter-platforms';
import type { Problem } from '@social-publisher/domain';
import { ScriptedPlatformRegistry } from '@social-publisher/domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectInvalid, type Harness } from './support.ts';

const mastodon = definePlatform({
  name: 'mastodon',
  label: 'Mastodon',
  media: { refuses: { video: 'mastodon takes photos only here' } },
  contentMaxLength: 500,
  options: {
    schema: {
      type: 'object',
      properties: { visibility: { enum: ['public', 'unlisted', 'private'] } },
      additionalProperties: false,
    },
    validate: (options): Problem[] =>
      options.visibility === 'private'
        ? [{ field: 'platform_options.mastodon.visibility', message: 'private is not supported' }]
        : [],
  },
  settings: {
    baseUrl: {
      env: 'MASTODON_API_BASE_URL',
      kind: 'url',
      default: 'https://mastodon.social',
      description: 'Instance',
    },
  },
  createPublisher: (settings) => ({
    platform: 'mastodon',
    validate: () => [],
    publish: async () => ({
      kind: 'published',
      platformPostId: '1',
      platformUrl: `${settings.baseUrl}/@us/1`,
    }),
    resume: async () => ({ kind: 'published', platformPostId: '1', platformUrl: null }),
  }),
});

const descriptors = [...PLATFORM_DESCRIPTORS, mastodon];

let h: Harness;
let key: Record<string, string>;

beforeAll(async () => {
  h = await createHarness({
    platforms: new ScriptedPlatformRegistry(descriptors.map((descriptor) => descriptor.rules)),
  });
  key = h.as(h.alice);
  await h.call({
    method: 'POST',
    url: '/social-accounts',
    headers: key,
    payload: { platform: 'mastodon', external_id: '42', access_token: 'tok' },
  });
});
afterAll(() => h.close());

const post = (payload: Record<string, unknown>) =>
  h.call({ method: 'POST', url: '/posts', headers: key, payload });

describe('a platform described only in this test', () => {
  it('is served by the registry with its rules and settings', () => {
    const registry = createPlatformRegistry(
      { settings: { mastodon: { baseUrl: 'https://example.social' } } },
      descriptors,
    );
    expect(registry.names.at(-1)).toBe('mastodon');
    expect(registry.rules('mastodon')?.contentMaxLength).toBe(500);
    expect(registry.get('mastodon')?.platform).toBe('mastodon');
  });

  it('is accepted by the HTTP schema and the post rules', async () => {
    const response = await post({
      content: 'Hello fediverse',
      platforms: ['mastodon'],
      media_urls: ['https://cdn.example.com/a.png'],
      platform_options: { mastodon: { visibility: 'unlisted' } },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data.post_targets[0].platform).toBe('mastodon');
  });

  it('is refused with its own rules: options schema, content limit, media kinds', async () => {
    expectInvalid(
      await post({ platforms: ['mastodon'], platform_options: { mastodon: { visibility: 'x' } } }),
      /platform_options/,
    );
    expectInvalid(
      await post({ platforms: ['mastodon'], platform_options: { mastodon: { boost: true } } }),
      /platform_options/,
    );
    expectInvalid(
      await post({
        platforms: ['mastodon'],
        platform_options: { mastodon: { visibility: 'private' } },
      }),
      'platform_options.mastodon.visibility',
    );
    expectInvalid(await post({ content: 'x'.repeat(501), platforms: ['mastodon'] }), 'content');
    expectInvalid(
      await post({ platforms: ['mastodon'], media_urls: ['https://cdn.example.com/a.mp4'] }),
      'media_urls[0]',
    );
  });

  it('is listed in OpenAPI with its options schema', async () => {
    const doc = (await h.call({ method: 'GET', url: '/openapi.json' })).json();
    const body = JSON.stringify(doc.paths['/posts'].post.requestBody);
    expect(body).toContain('"mastodon"');
    expect(body).toContain('"unlisted"');
    const connect = JSON.stringify(doc.paths['/social-accounts'].post.requestBody);
    expect(connect).toContain('"mastodon"');
  });
});
