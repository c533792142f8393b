// Platforms that fetch media by URL themselves (Facebook, Pinterest) get no bytes through us. We
// still never hand them a URL our own SSRF guard refuses: the same URL would be refused by every
// other platform, and an account should not publish what the rest of the system forbids.
import { checkUrl, findRefusal } from '@social-publisher/net-guard';
import { request } from 'undici';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { fail } from './outcome.ts';

/**
 * Throws `media_url_refused` (permanent) when `url` fails the pre-flight check (scheme,
 * credentials) or the guarded media dispatcher refuses its address. The address policy lives in
 * the dispatcher (tests and development allow private networks), so the only way to ask it is to
 * connect: a HEAD whose answer is ignored. Anything else that goes wrong here (a 403 for HEAD on
 * a URL signed for GET, a slow host) is the platform's to judge when it fetches the media.
 */
export async function assertMediaAllowed(
  url: string,
  runtime: PublisherRuntime,
  signal: AbortSignal,
): Promise<void> {
  const check = checkUrl(url, { allowHttp: true, allowPrivateNetworks: true });
  if (!check.ok) throw fail('media_url_refused', `media ${url} refused: ${check.reason}`, false);
  try {
    const response = await request(url, {
      method: 'HEAD',
      dispatcher: runtime.mediaDispatcher,
      signal,
      headersTimeout: runtime.requestTimeoutMs,
      bodyTimeout: runtime.requestTimeoutMs,
    });
    await response.body.dump();
  } catch (error) {
    if (signal.aborted) throw error;
    const refusal = findRefusal(error);
    if (refusal) throw fail('media_url_refused', `media ${url}: ${refusal.message}`, false);
  }
}
