/**
 * The streams a publisher hands to an upload (a capped body, a range cut from a whole answer)
 * can fail before the upload reads them: the media server drops the connection while the
 * publisher still waits for the platform. That failure must reach the upload when it reads,
 * never end the worker as an uncaught stream error.
 */
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listen } from '../../testkit/src/fakes/http.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../src/config.ts';
import { capped, createMediaFetcher } from '../src/shared/media-fetch.ts';

const TOTAL = 100_000;

// /cut: announces TOTAL bytes, ignores Range, sends 1 KiB, then drops the connection.
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  server = await listen((_request, response) => {
    response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(TOTAL) });
    response.write(Buffer.alloc(1024, 1));
    setTimeout(() => response.socket?.destroy(), 20);
  });
});
afterAll(() => server.close());

let uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);
beforeEach(() => {
  uncaught = [];
  process.on('uncaughtException', record);
});
afterEach(() => {
  process.off('uncaughtException', record);
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('a media stream that fails before the upload reads it', () => {
  it('capped: the failure waits for the reader', async () => {
    const source = new Readable({ read() {} });
    const body = capped({ body: source, length: undefined, contentType: 'image/png' }, 10, () =>
      Object.assign(new Error('too large')),
    ).body;
    source.destroy(new Error('media server went away'));
    await settle();
    expect(uncaught).toEqual([]);
    await expect(text(body)).rejects.toThrow('media server went away');
  });

  it('a range cut from a whole answer: the failure waits for the reader', async () => {
    const fetcher = createMediaFetcher(
      {
        apiDispatcher: new Agent(),
        mediaDispatcher: new Agent(),
        pollIntervalMs: 0,
        pollTimeoutMs: 0,
        requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      },
      AbortSignal.timeout(5_000),
    );
    const media = await fetcher.range(`${server.baseUrl}/cut`, 2_000, 2_999, TOTAL);
    // Nobody reads it yet (the publisher waits for the platform) while the server drops it.
    await settle();
    expect(uncaught).toEqual([]);
    await expect(text(media.body)).rejects.toThrow();
  });
});
