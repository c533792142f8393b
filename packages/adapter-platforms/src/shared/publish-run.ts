// What one publish run of a publisher that stores its progress works with (X, LinkedIn,
// Pinterest, Bluesky, Facebook, Threads): made once at its start and handed to each of its
// steps, which then live as plain functions in the network's folder rather than closures of
// one long run.
import type { PlatformPublisher, PublishOutcome, PublishRequest } from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { AuthSession, type TokenRefresher } from './auth.ts';
import { createMediaFetcher } from './media-fetch.ts';
import { progressPublisher } from './progress-publisher.ts';

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

/** A run that stores nothing between attempts: its one create call is covered by an intent. */
export type OneCallRun<Api> = PublishRun<Api, Record<string, never>>;

/**
 * The publisher of a platform whose post is one create call under an intent (Reddit, Google
 * Business Profile): publish and resume are the same run, with nothing stored in between; a
 * resumed run finds the intent and looks the post up before sending.
 */
export function oneCallPublisher<Api>(spec: {
  platform: string;
  label: string;
  validate: PlatformPublisher['validate'];
  runtime: PublisherRuntime;
  refresher: TokenRefresher | null;
  api(signal: AbortSignal): Api;
  publish(run: OneCallRun<Api>): Promise<PublishOutcome>;
}): PlatformPublisher {
  const { label, runtime, refresher } = spec;
  return progressPublisher({
    platform: spec.platform,
    validate: spec.validate,
    readProgress: () => null,
    run: (request: PublishRequest) =>
      spec.publish(
        startPublishRun(request, runtime, {
          label,
          refresher,
          api: spec.api(request.signal),
          progress: {},
        }),
      ),
  });
}
