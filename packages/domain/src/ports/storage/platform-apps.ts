import type { Platform, PlatformApp } from '../../model.ts';

/**
 * Apps registered on the instances of platforms where every server is its own OAuth provider
 * (Mastodon): one per platform and instance, kept and reused by later connects.
 */
export interface PlatformAppRepository {
  find(platform: Platform, instance: string): Promise<PlatformApp | null>;
  /**
   * Stores `app` unless one is already kept for its platform and instance, in one statement:
   * returns the app kept, `app` itself or the one stored first. Concurrent first connects
   * thus converge on one app.
   */
  keep(app: PlatformApp): Promise<PlatformApp>;
}
