import { createGuardedDispatcher } from '@social-publisher/net-guard';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The fakes live in the private test kit (imported by path, as helpers.ts does).
import { listen } from '../../testkit/src/fakes/http.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../src/config.ts';
import { createMediaProbe } from '../src/index.ts';
import { withRedirectingMedia } from '../src/shared/media-dispatcher.ts';
import { createMediaFetcher } from '../src/shared/media-fetch.ts';

// /hop/<n> redirects to /hop/<n-1>; /hop/0 is a 1 KiB JPEG.
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  server = await listen((_request, response, url) => {
    const n = Number(url.pathname.split('/').pop());
    if (n > 0) {
      response.writeHead(302, { location: `/hop/${n - 1}` }).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '1024' });
    response.end(Buffer.alloc(1024));
  });
});
afterAll(() => server.close());

/** An agent whose every dispatch is recorded: what the SSRF guard would see, hop by hop. */
function recording(): { dispatcher: Dispatcher; paths: string[] } {
  const paths: string[] = [];
  const dispatcher = new Agent().compose((dispatch) => (options, handler) => {
    paths.push(String(options.path));
    return dispatch(options, handler);
  });
  return { dispatcher, paths };
}

const runtimeOf = (mediaDispatcher: Dispatcher) => ({
  apiDispatcher: mediaDispatcher,
  mediaDispatcher,
  pollIntervalMs: 0,
  pollTimeoutMs: 0,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
});

describe('the media dispatcher of publishers that fetch media', () => {
  it('follows up to 5 redirects, every hop through the given media dispatcher', async () => {
    const { dispatcher, paths } = recording();
    const fetcher = createMediaFetcher(
      withRedirectingMedia(runtimeOf(dispatcher)),
      AbortSignal.timeout(5_000),
    );
    await expect(fetcher.probe(`${server.baseUrl}/hop/5`)).resolves.toEqual({
      totalBytes: 1024,
      contentType: 'image/jpeg',
    });
    expect(paths).toEqual(['/hop/5', '/hop/4', '/hop/3', '/hop/2', '/hop/1', '/hop/0']);
  });

  it('gives up past 5 redirects', async () => {
    const fetcher = createMediaFetcher(
      withRedirectingMedia(runtimeOf(recording().dispatcher)),
      AbortSignal.timeout(5_000),
    );
    await expect(fetcher.probe(`${server.baseUrl}/hop/6`)).rejects.toThrow();
  });

  it('is the one the media probe uses', async () => {
    const { dispatcher, paths } = recording();
    const probe = createMediaProbe(dispatcher);
    expect(await probe.probe(`${server.baseUrl}/hop/2`)).toEqual({
      ok: true,
      contentType: 'image/jpeg',
      bytes: 1024,
    });
    expect(paths).toEqual(['/hop/2', '/hop/1', '/hop/0']);
  });
});

describe('a media URL whose name resolves to an internal address', () => {
  it.each([
    ['cdn.internal.example', '127.0.0.1', 'loopback'],
    ['files.internal.example', '10.20.30.40', 'private'],
  ])(
    'the probe (POST /posts/validate) refuses %s naming no address; the guard logs it',
    async (host, address, category) => {
      const warnings: Array<Record<string, unknown>> = [];
      const guard = createGuardedDispatcher({
        allowPrivateNetworks: false,
        resolver: async () => [{ address, family: 4 }],
        logger: { warn: (obj) => void warnings.push(obj as Record<string, unknown>) },
        label: 'media',
      });
      const result = await createMediaProbe(guard).probe(`https://${host}/clip.mp4`);
      expect(result).toEqual({
        ok: false,
        reason: `media HEAD https://${host}/clip.mp4: refused: ${host} resolves to a private or internal address`,
      });
      if (!result.ok) expect(result.reason).not.toMatch(/\d+\.\d+\.\d+\.\d+/);
      expect(warnings).toEqual([{ component: 'media', host, address, category }]);
      await guard.close();
    },
  );
});
