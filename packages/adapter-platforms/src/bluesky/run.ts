// What one Bluesky publish run works with (shared/publish-run.ts, with the account and its
// record keys), handed to each of its steps (publisher.ts: the records; embed.ts: the media).
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { TokenRefresher } from '../shared/auth.ts';
import { type PublishRun, startPublishRun } from '../shared/publish-run.ts';
import { createBlueskyApi } from './api.ts';
import { type BlueskyProgress, freshProgress } from './progress.ts';
import { recordKey } from './record-key.ts';
import type { BlueskySettings } from './settings.ts';

export const LABEL = 'Bluesky';

export interface BlueskyRun
  extends PublishRun<ReturnType<typeof createBlueskyApi>, BlueskyProgress> {
  /** The account's DID. */
  repo: string;
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
  const run = startPublishRun(request, runtime, {
    label: LABEL,
    refresher,
    api: createBlueskyApi(config, runtime, request.signal),
    progress: stored ?? freshProgress(),
  });
  return {
    ...run,
    repo: request.connection.externalId,
    keyOf: (part) => recordKey(request.post.createdAt, request.target.id, part),
  };
}
