/**
 * The domain's MediaProbe over the publishers' own media fetcher: HEAD (then a headers-only GET)
 * through the SSRF-guarded dispatcher, following redirects as publishers do. Never downloads
 * the media; a refusal keeps the reason the publisher would have given at publish time.
 */
import { errorMessage, type MediaProbe, type MediaProbeResult } from '@social-publisher/domain';
import type { Dispatcher } from 'undici';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './config.ts';
import type { PublisherRuntime } from './publisher-runtime.ts';
import { followingRedirects } from './shared/media-dispatcher.ts';
import { createMediaFetcher } from './shared/media-fetch.ts';
import { PublishFailure } from './shared/outcome.ts';

export function createMediaProbe(
  mediaDispatcher: Dispatcher,
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
): MediaProbe {
  const runtime: PublisherRuntime = {
    apiDispatcher: mediaDispatcher,
    mediaDispatcher: followingRedirects(mediaDispatcher),
    pollIntervalMs: 0,
    pollTimeoutMs: 0,
    requestTimeoutMs,
  };
  return {
    async probe(url, signal): Promise<MediaProbeResult> {
      // The caller's signal (its client gone) stops the probe, and so does the time limit.
      const timeout = AbortSignal.timeout(requestTimeoutMs);
      const fetcher = createMediaFetcher(
        runtime,
        signal ? AbortSignal.any([signal, timeout]) : timeout,
      );
      try {
        const media = await fetcher.probe(url);
        const type = media.contentType === 'application/octet-stream' ? null : media.contentType;
        return { ok: true, contentType: type, bytes: media.totalBytes };
      } catch (error) {
        if (error instanceof PublishFailure && error.outcome.kind === 'failed') {
          return { ok: false, reason: error.outcome.message };
        }
        return { ok: false, reason: errorMessage(error) };
      }
    },
  };
}
