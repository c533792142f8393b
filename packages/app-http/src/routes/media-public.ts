/**
 * GET/HEAD /m/:name: hosted media as the platforms pull them. No credential (the 128-bit
 * random name is the secret), single byte ranges (206, 416), and 404 once the media is deleted
 * or expired. HEAD answers from the database alone: no store read.
 */

import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type CoreDeps,
  findPublicMedia,
  MEDIA_CONTENT_TYPES,
  openPublicMedia,
} from '@social-publisher/domain';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { HttpError } from '../errors.ts';
import { parseRange } from '../media/range.ts';
import { ErrorSchema, errors, PATH_ERRORS } from '../schemas/error-responses.ts';

/**
 * Shared caches may keep a hosted media 5 minutes at most: a deleted or expired media stops
 * being served by them soon after it stops being served here.
 */
export const PUBLIC_MEDIA_CACHE_CONTROL = 'public, max-age=300';

const Bytes = Type.String({ description: 'The bytes' });
const bytesOfEveryType = (description: string) => ({
  description,
  headers: {
    'Cache-Control': Type.Literal(PUBLIC_MEDIA_CACHE_CONTROL, {
      description: 'Shared caches keep it 5 minutes at most',
    }),
  },
  content: Object.fromEntries(
    Object.keys(MEDIA_CONTENT_TYPES).map((type) => [type, { schema: Bytes }]),
  ),
});

const gone = () => new HttpError(404, 'not_found', 'media not found');

export const mediaPublicRoutes: FastifyPluginAsyncTypebox<{ deps: CoreDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/m/:name',
    {
      schema: {
        tags: ['Media'],
        operationId: 'getPublicMedia',
        summary: 'Read a hosted media (public)',
        description:
          'The bytes of a hosted media, at the url POST /media answered: no credential, for the platforms to pull. Range (one byte range: 206 with Content-Range; 416 when unsatisfiable) and HEAD (headers only) are supported. 404 once the media is deleted or expired.',
        security: [],
        params: Type.Object({
          name: Type.String({ description: 'The name in the media url' }),
        }),
        headers: Type.Object({
          range: Type.Optional(Type.String({ description: 'bytes=start-end, start- or -suffix' })),
        }),
        response: {
          200: bytesOfEveryType('The whole media'),
          206: bytesOfEveryType('The requested range (Content-Range says which)'),
          416: {
            description: 'range_not_satisfiable',
            content: { 'application/json': { schema: ErrorSchema } },
          },
          ...errors(...PATH_ERRORS, 500),
        },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const media = await findPublicMedia(deps, name);
      if (!media) throw gone();
      const range = parseRange(request.headers.range, media.size);
      reply
        .header('Accept-Ranges', 'bytes')
        .header('ETag', `"${media.sha256}"`)
        .header('Cache-Control', PUBLIC_MEDIA_CACHE_CONTROL)
        .header('X-Content-Type-Options', 'nosniff')
        .type(media.contentType);
      if (range.kind === 'unsatisfiable') {
        reply.header('Content-Range', `bytes */${media.size}`);
        throw new HttpError(
          416,
          'range_not_satisfiable',
          `the range is outside the media (${media.size} bytes)`,
        );
      }
      const part = range.kind === 'range' ? { start: range.start, end: range.end } : undefined;
      const length = part ? part.end - part.start + 1 : media.size;
      if (part) {
        reply.code(206).header('Content-Range', `bytes ${part.start}-${part.end}/${media.size}`);
      }
      reply.header('Content-Length', String(length));
      // The bytes are no JSON: the document's schemas describe them, the serializer is skipped.
      const raw = reply as FastifyReply;
      // HEAD: an empty stream, so that Content-Length stays the media's (an empty payload would
      // be announced as 0 bytes).
      if (request.method === 'HEAD') return raw.send(Readable.from([]));
      const opened = await openPublicMedia(deps, name, part);
      if (!opened) throw gone();
      return raw.send(opened.stored.body);
    },
  );
};
