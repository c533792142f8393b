// What one X publish run works with, made once and handed to each of its steps
// (publisher.ts: the posts; upload.ts: the media).
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession, type TokenRefresher } from '../shared/auth.ts';
import { createMediaFetcher } from '../shared/media-fetch.ts';
import { createXApi } from './api.ts';
import { freshProgress, type XProgress } from './progress.ts';
import type { TwitterSettings } from './settings.ts';

export const LABEL = 'X';

export interface XRun {
  request: PublishRequest;
  runtime: PublisherRuntime;
  auth: AuthSession;
  api: ReturnType<typeof createXApi>;
  media: ReturnType<typeof createMediaFetcher>;
  progress: XProgress;
  /** Stores a copy of `progress` on the target. */
  save(): Promise<void>;
}

export function startRun(
  config: TwitterSettings,
  runtime: PublisherRuntime,
  refresher: TokenRefresher | null,
  request: PublishRequest,
  stored: XProgress | null,
): XRun {
  const progress = stored ?? freshProgress(request.post.mediaUrls.length);
  return {
    request,
    runtime,
    auth: new AuthSession(request, refresher, LABEL),
    api: createXApi(config, runtime, request.signal),
    media: createMediaFetcher(runtime, request.signal),
    progress,
    save: () => request.saveProgress(structuredClone(progress) as never),
  };
}
