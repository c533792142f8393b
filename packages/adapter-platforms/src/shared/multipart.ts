// multipart/form-data written by hand and streamed: the media bytes go from the media URL to the
// platform as they arrive, never held whole. (undici's FormData is tied to undici's own
// dispatcher, while calls may go through another copy's.)
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** A file part: the media as it streams, with its length when the server said it. */
export interface MediaPart {
  body: Readable;
  length: number | undefined;
  contentType: string;
}

export interface Multipart {
  body: Readable;
  /** Known when every part's length is: sent as Content-Length. */
  length: number | undefined;
  boundary: string;
}

/**
 * The text `fields` in order, then the file as the last part named `fileField` (storage services
 * such as S3 presigned POSTs ignore anything after the file).
 */
export function multipart(
  file: MediaPart,
  fields: Record<string, string>,
  fileField = 'media',
): Multipart {
  const boundary = `----sp${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="${fileField}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
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

/** The Content-Type (and Content-Length when known) of a multipart body. */
export const multipartHeaders = (form: Multipart): Record<string, string> => ({
  'content-type': `multipart/form-data; boundary=${form.boundary}`,
  ...(form.length === undefined ? {} : { 'content-length': String(form.length) }),
});
