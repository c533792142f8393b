// Media URLs often redirect (CDNs, signed storage links). Following them on the media
// dispatcher itself keeps every hop behind the SSRF guard, which checks each destination when it
// connects.
import { type Dispatcher, interceptors } from 'undici';
import type { PublisherRuntime } from '../publisher-runtime.ts';

/** Redirects followed per media request before it fails. */
export const MEDIA_MAX_REDIRECTIONS = 5;

/** `dispatcher` following up to MEDIA_MAX_REDIRECTIONS redirects, each hop through it. */
export function followingRedirects(dispatcher: Dispatcher): Dispatcher {
  return dispatcher.compose(interceptors.redirect({ maxRedirections: MEDIA_MAX_REDIRECTIONS }));
}

/** `runtime` whose media fetches follow redirects (for publishers that fetch media bytes). */
export function withRedirectingMedia(runtime: PublisherRuntime): PublisherRuntime {
  return { ...runtime, mediaDispatcher: followingRedirects(runtime.mediaDispatcher) };
}
