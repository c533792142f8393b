/**
 * The `file` part of a multipart/form-data upload, as a stream: busboy parses the body as it
 * arrives and hands the part over without buffering it. Other parts are skipped.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { HttpError } from '../errors.ts';

export interface FilePart {
  file: Readable;
  filename: string | null;
  contentType: string;
}

/** Resolves with the first part named `file`, or rejects (400) when the body has none. */
export function multipartFile(body: Readable, headers: IncomingHttpHeaders): Promise<FilePart> {
  return new Promise((resolve, reject) => {
    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: headers as IncomingHttpHeaders & { 'content-type': string },
        // Every part may be a file: the one named `file` is kept wherever it comes, the
        // others are skipped (a limit of one file would end the parsing at the first of them).
        limits: { files: 21, fields: 20, parts: 21, headerPairs: 50 },
      });
    } catch (error) {
      reject(
        new HttpError(
          400,
          'bad_request',
          `the multipart body cannot be read: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      return;
    }
    let found = false;
    /**
     * The part as the upload reads it. A body cut short (no closing boundary) fails the part
     * with busboy's own error, after the part was handed over: it is turned into a 400 here,
     * before anyone reads it, so that the upload is refused as bad input (never a 500) and the
     * store removes what it wrote.
     */
    const part = new PassThrough();
    // Its error may come before the upload listens (the whole body already arrived): the
    // upload reads it from `part.errored` then; this keeps it from being an uncaught error.
    part.on('error', () => {});
    const malformed = (error: Error) =>
      new HttpError(400, 'bad_request', `the multipart body cannot be read: ${error.message}`);
    parser.on('file', (field, file, filename, _encoding, mimeType) => {
      if (found || field !== 'file') {
        file.on('error', () => {});
        file.resume();
        return;
      }
      found = true;
      file.on('error', (error: Error) => part.destroy(malformed(error)));
      file.pipe(part);
      resolve({ file: part, filename: filename || null, contentType: mimeType.toLowerCase() });
    });
    parser.on('error', (error: Error) => {
      if (!found) reject(malformed(error));
      else part.destroy(malformed(error));
    });
    parser.on('finish', () => {
      if (!found) {
        reject(
          new HttpError(400, 'validation_failed', 'the multipart body has no part named "file"', {
            details: [{ field: 'file', message: 'is required: one part named "file"' }],
          }),
        );
      }
    });
    // A body that fails before the part arrived (the client went away) ends the wait.
    body.once('error', (error: Error) => {
      if (!found) reject(error);
    });
    body.pipe(parser);
  });
}
