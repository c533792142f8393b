// What one publish run of a publisher that stores its progress works with (X, LinkedIn,
// Pinterest, Bluesky, Facebook, Threads): made once at its start and handed to each of its
// steps, which then live as plain functions in the network's folder rather than closures of
// one long run.
import type { PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession, type TokenRefresher } from './auth.ts';
import { createMediaFetcher } from './media-fetch.ts';

export interface PublishRun<Api, Progress> {
  request: PublishRequest;
  runtime: PublisherRuntime;
  /** The connection's tokens, refreshed once on a rejected token. */
  auth: AuthSession;
  api: Api;
  /** Media bytes, fetched through the guarded media dispatcher. */
  media: ReturnType<typeof createMediaFetcher>;
  /** What the run has done so far: `stored` progress of an earlier run, or a fresh one. */
  progress: Progress;
  /** Stores a copy of `progress` on the target. */
  save(): Promise<void>;
}

export function startPublishRun<Api, Progress>(
  request: PublishRequest,
  runtime: PublisherRuntime,
  run: { label: string; refresher: TokenRefresher | null; api: Api; progress: Progress },
): PublishRun<Api, Progress> {
  const { progress } = run;
  return {
    request,
    runtime,
    auth: new AuthSession(request, run.refresher, run.label),
    api: run.api,
    media: createMediaFetcher(runtime, request.signal),
    progress,
    save: () => request.saveProgress(structuredClone(progress) as never),
  };
}
