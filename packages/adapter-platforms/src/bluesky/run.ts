// What one Bluesky publish run works with, made once and handed to each of its steps
// (publisher.ts: the records; embed.ts: the media).
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession, type TokenRefresher } from '../shared/auth.ts';
import { createMediaFetcher } from '../shared/media-fetch.ts';
import { createBlueskyApi } from './api.ts';
import { type BlueskyProgress, freshProgress } from './progress.ts';
import { recordKey } from './record-key.ts';
import type { BlueskySettings } from './settings.ts';

export const LABEL = 'Bluesky';

export interface BlueskyRun {
  request: PublishRequest;
  auth: AuthSession;
  api: ReturnType<typeof createBlueskyApi>;
  media: ReturnType<typeof createMediaFetcher>;
  /** The account's DID. */
  repo: string;
  progress: BlueskyProgress;
  /** Stores a copy of `progress` on the target. */
  save(): Promise<void>;
  /** The record key of part `part` of this post (record-key.ts). */
  keyOf(part: number): string;
}

export function startRun(
  config: BlueskySettings,
  runtime: PublisherRuntime,
  refresher: TokenRefresher | null,
  request: PublishRequest,
  stored: BlueskyProgress | null,
): BlueskyRun {
  const progress = stored ?? freshProgress();
  return {
    request,
    auth: new AuthSession(request, refresher, LABEL),
    api: createBlueskyApi(config, runtime, request.signal),
    media: createMediaFetcher(runtime, request.signal),
    repo: request.connection.externalId,
    progress,
    save: () => request.saveProgress(structuredClone(progress) as never),
    keyOf: (part) => recordKey(request.post.createdAt, request.target.id, part),
  };
}
