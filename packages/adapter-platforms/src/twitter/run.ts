// What one X publish run works with (shared/publish-run.ts), handed to each of its steps
// (publisher.ts: the posts; upload.ts: the media).
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import type { TokenRefresher } from '../shared/auth.ts';
import { type PublishRun, startPublishRun } from '../shared/publish-run.ts';
import { createXApi } from './api.ts';
import { freshProgress, type XProgress } from './progress.ts';
import type { TwitterSettings } from './settings.ts';

export const LABEL = 'X';

export type XRun = PublishRun<ReturnType<typeof createXApi>, XProgress>;

export function startRun(
  config: TwitterSettings,
  runtime: PublisherRuntime,
  refresher: TokenRefresher | null,
  request: PublishRequest,
  stored: XProgress | null,
): XRun {
  return startPublishRun(request, runtime, {
    label: LABEL,
    refresher,
    api: createXApi(config, runtime, request.signal),
    progress: stored ?? freshProgress(request.post.mediaUrls.length),
  });
}
