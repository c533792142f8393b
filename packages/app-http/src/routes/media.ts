/**
 * Hosted media: POST /media (the bytes, raw or multipart, streamed to the store), GET /media,
 * GET and DELETE /media/:id. The public URL (GET/HEAD /m/:name) is in media-public.ts.
 */
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  bareContentType,
  type DomainError,
  deleteMedia,
  getMedia,
  listMediaPage,
  MAX_POSTS_PAGE,
  MEDIA_CONTENT_TYPES,
  type Media,
  type Result,
  uploadMedia,
} from '@social-publisher/domain';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { fromDomainError, HttpError, unwrap } from '../errors.ts';
import { multipartFile } from '../media/multipart-file.ts';
import {
  AUTH_ERRORS,
  Data,
  errors,
  IdParams,
  Nullable,
  PATH_ERRORS,
  WorkspaceQuery,
} from '../schemas/common.ts';
import { MediaSchema, presentMedia } from '../schemas/media.ts';
import { validatorCompiler } from '../validator-compiler.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const RAW_TYPES = Object.keys(MEDIA_CONTENT_TYPES);
const MULTIPART = 'multipart/form-data';

const UploadQuery = Type.Object({
  ...WorkspaceQuery.properties,
  filename: Type.Optional(
    Type.String({ maxLength: 255, description: 'The file name to keep with a raw upload' }),
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

const MediaQuery = Type.Object({
  ...WorkspaceQuery.properties,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_POSTS_PAGE,
      default: 100,
      description: `Page size (1-${MAX_POSTS_PAGE}, default 100)`,
    }),
  ),
  before: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
});

const MediaIdParams = IdParams('Media id');

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

export const mediaRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
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

  app.get(
    '/media',
    {
      schema: {
        tags: ['Media'],
        operationId: 'listMedia',
        summary: 'List your media',
        description:
          'The media of the account (personal, or workspace_id), newest first (created_at, then id, descending), at most limit of them plus next_cursor; pass it as before to get the next page (null on the last page).',
        security: SECURED,
        querystring: MediaQuery,
        response: {
          200: Type.Object(
            {
              data: Type.Array(MediaSchema),
              next_cursor: Nullable(
                Type.String({ description: 'The before of the next page, null on the last' }),
              ),
            },
            { description: 'The media, newest first' },
          ),
          ...errors(...AUTH_ERRORS, 400, 403),
        },
      },
    },
    async (request) => {
      const { workspace_id: workspaceId, limit = 100, before } = request.query;
      const ctx = await contextOf(deps, request, workspaceId);
      const page = unwrap(
        await listMediaPage(deps, ctx, { limit, ...(before === undefined ? {} : { before }) }),
      );
      return {
        data: page.media.map((media) => presentMedia(media, baseUrl)),
        next_cursor: page.nextCursor,
      };
    },
  );

  app.get(
    '/media/:id',
    {
      schema: {
        tags: ['Media'],
        operationId: 'getMedia',
        summary: 'Get a media',
        description: 'The media: its public url, type, size, sha256 and expiry.',
        security: SECURED,
        params: MediaIdParams,
        response: {
          200: Data(MediaSchema, 'The media'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => ({
      data: presentMedia(
        unwrap(await getMedia(deps, actorOf(request), request.params.id)),
        baseUrl,
      ),
    }),
  );

  app.delete(
    '/media/:id',
    {
      schema: {
        tags: ['Media'],
        operationId: 'deleteMedia',
        summary: 'Delete a media',
        description:
          'Deletes the bytes and the record; its url answers 404 from then on. 409 while a post that is not finished (scheduled, queued, publishing) uses it.',
        security: SECURED,
        params: MediaIdParams,
        response: {
          200: Data(MediaSchema, 'The deleted media'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 409),
        },
      },
    },
    async (request) => ({
      data: presentMedia(
        unwrap(await deleteMedia(deps, actorOf(request), request.params.id)),
        baseUrl,
      ),
    }),
  );
};
