/**
 * The `file` part of a multipart/form-data upload, as a stream: busboy parses the body as it
 * arrives and hands the part over without buffering it. Other parts are skipped.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
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
        limits: { files: 1, fields: 20, parts: 21, headerPairs: 50 },
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
    parser.on('file', (field, file, filename, _encoding, mimeType) => {
      if (found || field !== 'file') {
        file.resume();
        return;
      }
      found = true;
      resolve({ file, filename: filename || null, contentType: mimeType.toLowerCase() });
    });
    parser.on('error', (error: Error) => {
      if (!found)
        reject(
          new HttpError(400, 'bad_request', `the multipart body cannot be read: ${error.message}`),
        );
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
