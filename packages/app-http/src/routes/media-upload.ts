/**
 * POST /media: the bytes, raw or multipart, streamed to the store without ever being held
 * whole. Listing, reading and deleting media are in media.ts; the public URL in media-public.ts.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  bareContentType,
  type DomainError,
  MAX_FILENAME_LENGTH,
  MEDIA_CONTENT_TYPES,
  type Media,
  type Result,
  uploadMedia,
} from '@social-publisher/domain';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import { contextOf } from '../context.ts';
import { fromDomainError, HttpError } from '../errors.ts';
import { multipartFile } from '../media/multipart-file.ts';
import { Data, WorkspaceQuery } from '../schemas/common.ts';
import { AUTH_ERRORS, errors } from '../schemas/error-responses.ts';
import { MediaSchema, presentMedia } from '../schemas/media.ts';
import { validatorCompiler } from '../validator-compiler.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const RAW_TYPES = Object.keys(MEDIA_CONTENT_TYPES);
const MULTIPART = 'multipart/form-data';

const UploadQuery = Type.Object({
  ...WorkspaceQuery.properties,
  filename: Type.Optional(
    Type.String({
      maxLength: MAX_FILENAME_LENGTH,
      description: 'The file name to keep with a raw upload',
    }),
  ),
});

const Bytes = Type.String({ description: 'The file itself (binary)' });

/** The body as the document shows it: the bytes under each type, or a form with `file`. */
const UploadBody = {
  content: {
    ...Object.fromEntries(RAW_TYPES.map((type) => [type, { schema: Bytes }])),
    [MULTIPART]: {
      schema: Type.Object({ file: Bytes }, { description: 'One part named file' }),
    },
  },
};

/** The body is a stream, not what the document shows: only query and headers are checked. */
const streamedBodyCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? (value) => ({ value }) : validatorCompiler(route);

const isStream = (value: unknown): value is Readable =>
  typeof (value as Readable | undefined)?.pipe === 'function';

/**
 * A client that goes away mid-upload ends the request without ending its body stream (a pipe
 * passes no errors on): the upload's source is failed instead, so the store's write stops and
 * its partial object is removed rather than waiting forever.
 */
function failWhenClientGoes(request: FastifyRequest, source: () => Readable | null): () => void {
  const raw = request.raw;
  const gone = () => {
    if (raw.complete) return;
    source()?.destroy(new HttpError(400, 'bad_request', 'the upload ended before its last byte'));
  };
  raw.once('close', gone);
  return () => raw.off('close', gone);
}

export const mediaUploadRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  // The body stays a stream all the way to the store.
  app.addContentTypeParser([...RAW_TYPES, MULTIPART], (_request, payload, done) => {
    done(null, payload);
  });
  const baseUrl = deps.settings.publicBaseUrl;
  const maxBytes = deps.media?.maxBytes ?? 0;

  app.post(
    '/media',
    {
      config: { bodyTimeout: 'media' },
      // Any answer given before the body was read to its end (a refusal of the credential, the
      // workspace, the type or the size) goes out with `Connection: close`: Node then closes
      // the connection once it is written instead of reading (up to gigabytes of) the rest.
      onSend: async (request, reply, payload) => {
        if (!request.raw.complete) reply.header('Connection', 'close');
        return payload;
      },
      // Fastify's JSON bound does not apply: the domain meters the bytes (MEDIA_MAX_BYTES).
      bodyLimit: Math.max(maxBytes + 1024 * 1024, 1024 * 1024),
      schema: {
        tags: ['Media'],
        operationId: 'uploadMedia',
        summary: 'Upload a media file',
        description: `The file itself as the body (Content-Type: ${RAW_TYPES.join(', ')}; optional ?filename=), or multipart/form-data with one part named file. Streamed to storage, never held whole; at most MEDIA_MAX_BYTES (413 media_too_large past it), and the account's media together at most MEDIA_QUOTA_BYTES (413 media_quota_exceeded). Its first bytes must be those of its type (415 media_type_mismatch: an HTML page sent as image/png is refused). The answer's url is public, unguessable and needs no credential: put it in media_urls of any post. Kept while a post that is not finished uses it, then MEDIA_RETENTION_DAYS.`,
        security: SECURED,
        querystring: UploadQuery,
        body: UploadBody,
        response: {
          201: Data(MediaSchema, 'The stored media (Location: /media/{id})'),
          ...errors(...AUTH_ERRORS, 400, 403, 413, 415),
        },
      },
      validatorCompiler: streamedBodyCompiler,
    },
    async (request, reply) => {
      const type = bareContentType(request.headers['content-type']);
      if (!isStream(request.body)) {
        throw new HttpError(
          415,
          'unsupported_media_type',
          `POST /media takes the file itself (Content-Type: ${RAW_TYPES.join(', ')}) or ${MULTIPART} with a part named file`,
        );
      }
      const body = request.body;
      const query = request.query as { workspace_id?: string; filename?: string };
      const ctx = await contextOf(deps, request, query.workspace_id);
      const length = Number(request.headers['content-length']);
      let source: Readable | null = body;
      const stopWatching = failWhenClientGoes(request, () => source);
      let result: Result<Media, DomainError>;
      try {
        if (type === MULTIPART) {
          if (Number.isFinite(length) && maxBytes > 0 && length > maxBytes + 1024 * 1024) {
            throw fromDomainError({
              code: 'media_too_large',
              message: `the media is larger than the limit of ${maxBytes} bytes (MEDIA_MAX_BYTES)`,
            });
          }
          const part = await multipartFile(body, request.headers);
          source = part.file;
          result = await uploadMedia(deps, ctx, {
            body: part.file,
            contentType: part.contentType,
            filename: query.filename ?? part.filename,
          });
        } else {
          result = await uploadMedia(deps, ctx, {
            body,
            contentType: type,
            filename: query.filename ?? null,
            declaredBytes: Number.isFinite(length) ? length : null,
          });
        }
      } finally {
        stopWatching();
      }
      // A refusal leaves the rest of the body unread: see onSend above.
      if (!result.ok) throw fromDomainError(result.error);
      reply.header('Location', `/media/${result.value.id}`);
      return reply.code(201).send({ data: presentMedia(result.value, baseUrl) });
    },
  );
};
