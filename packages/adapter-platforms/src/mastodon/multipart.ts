import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** A file part: the media as it streams, with its length when its server said it. */
export interface MediaPart {
  body: Readable;
  length: number | undefined;
  contentType: string;
}

export interface Multipart {
  body: Readable;
  /** Known when the file's length is: sent as Content-Length. */
  length: number | undefined;
  boundary: string;
}

/**
 * multipart/form-data with one `file` field, written by hand and streamed: the bytes go from the
 * media URL to the instance as they arrive, never held whole.
 */
export function filePart(file: MediaPart): Multipart {
  const boundary = `----sp${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="media"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts() {
    yield head;
    yield* file.body;
    yield tail;
  }
  return {
    body: Readable.from(parts(), { objectMode: false }),
    length: file.length === undefined ? undefined : head.length + file.length + tail.length,
    boundary,
  };
}
