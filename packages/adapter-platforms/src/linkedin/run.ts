// What one LinkedIn publish run works with, made once and handed to each of its steps
// (publisher.ts: the post; upload.ts: the media).
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession, type TokenRefresher } from '../shared/auth.ts';
import { createMediaFetcher } from '../shared/media-fetch.ts';
import { createLinkedinApi } from './api.ts';
import type { LinkedinProgress } from './progress.ts';
import type { LinkedinSettings } from './settings.ts';

export const LABEL = 'LinkedIn';

export interface LinkedinRun {
  request: PublishRequest;
  runtime: PublisherRuntime;
  auth: AuthSession;
  api: ReturnType<typeof createLinkedinApi>;
  media: ReturnType<typeof createMediaFetcher>;
  /** The post's author URN (the member or an organization), kept across resumes. */
  author: string;
  progress: LinkedinProgress;
  /** Stores a copy of `progress` on the target. */
  save(): Promise<void>;
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
  return {
    request,
    runtime,
    auth: new AuthSession(request, refresher, LABEL),
    api: createLinkedinApi(config, runtime, request.signal),
    media: createMediaFetcher(runtime, request.signal),
    author,
    progress,
    save: () => request.saveProgress(structuredClone(progress) as never),
  };
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
