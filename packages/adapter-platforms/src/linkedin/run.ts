// What one LinkedIn publish run works with (shared/publish-run.ts, with the post's author),
// handed to each of its steps (publisher.ts: the post; upload.ts: the media).
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { TokenRefresher } from '../shared/auth.ts';
import { type PublishRun, startPublishRun } from '../shared/publish-run.ts';
import { createLinkedinApi } from './api.ts';
import type { LinkedinProgress } from './progress.ts';
import type { LinkedinSettings } from './settings.ts';

export const LABEL = 'LinkedIn';

export interface LinkedinRun
  extends PublishRun<ReturnType<typeof createLinkedinApi>, LinkedinProgress> {
  /** The post's author URN (the member or an organization), kept across resumes. */
  author: string;
}

export function startRun(
  config: LinkedinSettings,
  runtime: PublisherRuntime,
  refresher: TokenRefresher | null,
  request: PublishRequest,
  stored: LinkedinProgress | null,
): LinkedinRun {
  const author = stored?.author ?? authorOf(request.connection.externalId);
  const progress: LinkedinProgress = stored ?? {
    author,
    images: request.post.mediaUrls.map(() => null),
    video: null,
  };
  const run = startPublishRun(request, runtime, {
    label: LABEL,
    refresher,
    api: createLinkedinApi(config, runtime, request.signal),
    progress,
  });
  return { ...run, author };
}

/**
 * The post's author from the connection: the member (`urn:li:person:{id}`) or an organization
 * it administers (`urn:li:organization:{id}`), as the connector stores them. A bare id (older
 * connections) is taken as the member's.
 */
export function authorOf(externalId: string): string {
  if (/^urn:li:(person|organization):[^:]+$/.test(externalId)) return externalId;
  return `urn:li:person:${externalId}`;
}
