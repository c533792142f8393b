// Which platforms delete their published posts (unpublish): a remover each, and none for the
// two whose APIs offer no delete (their targets answer `unsupported`).
import { describe, expect, it } from 'vitest';
import { FACEBOOK_SCOPES } from '../src/facebook/oauth.ts';
import { createPlatformRegistry } from '../src/index.ts';
import { THREADS_SCOPES } from '../src/threads/oauth.ts';
import { YOUTUBE_SCOPES } from '../src/youtube/oauth.ts';
import { testConfig } from './helpers.ts';

const DELETING = [
  'twitter',
  'facebook',
  'threads',
  'linkedin',
  'youtube',
  'pinterest',
  'bluesky',
  'mastodon',
];

describe('removers', () => {
  const registry = createPlatformRegistry(testConfig());

  it('x, facebook, threads, linkedin, youtube, pinterest, bluesky and mastodon delete', () => {
    for (const platform of DELETING) {
      expect(registry.remover(platform), platform).toBeDefined();
    }
  });

  it('every other platform has no remover: its targets answer unsupported', () => {
    const others = registry.names.filter((platform) => !DELETING.includes(platform));
    expect(others).toEqual(
      expect.arrayContaining(['instagram', 'tiktok', 'reddit', 'telegram', 'discord']),
    );
    for (const platform of others) expect(registry.remover(platform), platform).toBeUndefined();
    expect(registry.remover('myspace')).toBeUndefined();
  });

  it('a scope a delete needs is one its connector asks for', () => {
    expect(registry.remover('facebook')?.scopes).toEqual(['pages_manage_engagement']);
    expect(FACEBOOK_SCOPES).toContain('pages_manage_engagement');
    expect(registry.remover('threads')?.scopes).toEqual(['threads_delete']);
    expect(THREADS_SCOPES).toContain('threads_delete');
    const youtube = registry.remover('youtube')?.scopes ?? [];
    expect(youtube).toHaveLength(1);
    for (const scope of youtube) expect(YOUTUBE_SCOPES).toContain(scope);
  });
});
