// Media bytes for the platforms we upload to ourselves: fetched through the
// SSRF-guarded media dispatcher and streamed straight into the upload (never whole in memory).
import { type Readable, Transform } from 'node:stream';
import { checkUrl, findRefusal } from '@social-publisher/net-guard';
import { request } from 'undici';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { header, transportFailure } from './http.ts';
import { fail } from './outcome.ts';

export interface MediaInfo {
  totalBytes: number;
  /** The media type the server names, without parameters (application/octet-stream if none). */
  contentType: string;
}

export interface MediaBody {
  body: Readable;
  /** Bytes that will flow (undefined when the server did not say). */
  length: number | undefined;
  contentType: string;
}

export function createMediaFetcher(runtime: PublisherRuntime, signal: AbortSignal) {
  async function get(url: string, method: 'GET' | 'HEAD', headers: Record<string, string>) {
    assertMediaUrl(url);
    try {
      return await request(url, {
        method,
        headers,
        dispatcher: runtime.mediaDispatcher,
        signal,
        headersTimeout: runtime.requestTimeoutMs,
        bodyTimeout: runtime.requestTimeoutMs,
      });
    } catch (error) {
      throw mediaTransportFailure(error, signal, `media ${method} ${url}`);
    }
  }

  return {
    /**
     * Size and type of the media: HEAD, then GET (headers only, body discarded) when HEAD is
     * refused or gives no length (e.g. URLs signed for GET only).
     */
    async probe(url: string): Promise<MediaInfo> {
      let status = 0;
      for (const method of ['HEAD', 'GET'] as const) {
        const response = await get(url, method, {});
        discard(response.body); // only the headers are wanted
        status = response.statusCode;
        const length = Number(header(response.headers, 'content-length'));
        if (status >= 200 && status < 300 && Number.isSafeInteger(length) && length > 0) {
          return {
            totalBytes: length,
            contentType: contentTypeOf(header(response.headers, 'content-type')),
          };
        }
      }
      if (status >= 200 && status < 300) {
        throw fail('media_fetch_failed', `media ${url} gives no Content-Length`, false);
      }
      throw mediaFailure(url, status);
    },

    /** Total size of the media (see `probe`). */
    async size(url: string): Promise<number> {
      return (await this.probe(url)).totalBytes;
    },

    /** The whole media, as it streams. */
    async whole(url: string): Promise<MediaBody> {
      const response = await get(url, 'GET', {});
      if (response.statusCode !== 200) {
        discard(response.body);
        throw mediaFailure(url, response.statusCode);
      }
      const length = Number(header(response.headers, 'content-length'));
      return {
        body: response.body,
        length: Number.isSafeInteger(length) && length >= 0 ? length : undefined,
        contentType: contentTypeOf(header(response.headers, 'content-type')),
      };
    },

    /**
     * Bytes `first`..`last` (inclusive) of a media of `total` bytes: a Range request; a server
     * that ignores Range (200, everything) is cut down to the range as the bytes stream by.
     */
    async range(url: string, first: number, last: number, total: number): Promise<MediaBody> {
      const wanted = last - first + 1;
      const whole = first === 0 && last === total - 1;
      const response = await get(url, 'GET', whole ? {} : { range: `bytes=${first}-${last}` });
      const contentType = contentTypeOf(header(response.headers, 'content-type'));
      if (response.statusCode === 206) {
        const range = /bytes (\d+)-(\d+)\/(\d+|\*)/.exec(
          header(response.headers, 'content-range') ?? '',
        );
        if (!range || Number(range[1]) !== first || Number(range[2]) !== last) {
          discard(response.body);
          throw fail(
            'media_size_changed',
            `media ${url} answered range ${range?.[0] ?? '?'} for bytes=${first}-${last}`,
            false,
          );
        }
        return { body: response.body, length: wanted, contentType };
      }
      if (response.statusCode === 200) {
        const length = Number(header(response.headers, 'content-length'));
        if (Number.isFinite(length) && length !== total) {
          discard(response.body);
          throw fail(
            'media_size_changed',
            `media ${url} is now ${length} bytes, was ${total}`,
            false,
          );
        }
        if (whole) {
          return { body: response.body, length: wanted, contentType };
        }
        const source = response.body;
        const slice = sliceBytes(first, wanted, () => {
          source.unpipe(slice);
          slice.end();
          discard(source);
        });
        source.on('error', (error) => slice.destroy(error));
        source.pipe(slice);
        return { body: awaitingItsReader(slice), length: wanted, contentType };
      }
      discard(response.body);
      throw mediaFailure(url, response.statusCode);
    },
  };
}

/** Stops reading a stream we no longer want (its late AbortError is swallowed). */
export function discard(stream: Readable): void {
  stream.on('error', () => {});
  stream.destroy();
}

/**
 * A stream handed to an upload that may read it only later (the publisher still waits for the
 * platform): a failure before then (the media server dropped the connection) must not be an
 * uncaught error that ends the worker. The reader still gets it: a failed stream fails its
 * read, and undici and `pipeline` check for one that failed before they came.
 */
function awaitingItsReader<S extends Readable>(stream: S): S {
  stream.on('error', () => {});
  return stream;
}

/** Passes `take` bytes after skipping `skip`; `done` runs once they all went through. */
function sliceBytes(skip: number, take: number, done: () => void): Transform {
  let position = 0;
  let finished = false;
  const end = skip + take;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const start = position;
      position += chunk.length;
      if (finished || position <= skip || start >= end) {
        callback();
        return;
      }
      const piece = chunk.subarray(Math.max(0, skip - start), Math.min(chunk.length, end - start));
      callback(null, piece);
      if (position >= end) {
        finished = true;
        queueMicrotask(done);
      }
    },
  });
}

const contentTypeOf = (value: string | undefined): string =>
  (value ?? '').split(';')[0]?.trim() || 'application/octet-stream';

/**
 * A media fetch that did not get an answer. A destination refused by the SSRF guard (private,
 * loopback, metadata address...) cannot succeed later; anything else may.
 */
function mediaTransportFailure(error: unknown, signal: AbortSignal, what: string): unknown {
  const refusal = signal.aborted ? null : findRefusal(error);
  if (refusal) return fail('media_url_refused', `${what}: ${refusal.message}`, false);
  return transportFailure(error, signal, what);
}

/** Scheme and credentials check before any connection (addresses are checked at connect time). */
function assertMediaUrl(url: string): void {
  const check = checkUrl(url, { allowHttp: true, allowPrivateNetworks: true });
  if (!check.ok) throw fail('media_url_refused', `media ${url} refused: ${check.reason}`, false);
}

function mediaFailure(url: string, status: number): Error {
  return fail(
    'media_fetch_failed',
    `media ${url} answered HTTP ${status}`,
    status >= 500 || status === 429 || status === 408,
  );
}

/**
 * The media with its bytes passed through, refused with `tooLarge()` past `max`: at once when
 * the server named a larger length, else as soon as more bytes than that flow (a server that did
 * not say). An error of the source stream ends the capped one too.
 */
export function capped(media: MediaBody, max: number, tooLarge: () => Error): MediaBody {
  if (media.length !== undefined && media.length > max) throw tooLarge();
  let size = 0;
  const body = media.body.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(size > max ? tooLarge() : null, size > max ? undefined : chunk);
      },
    }),
  );
  media.body.on('error', (error) => body.destroy(error));
  return { ...media, body: awaitingItsReader(body) };
}
