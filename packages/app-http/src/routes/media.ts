import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteMedia, getMedia, listMediaPage } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  Data,
  IdParams,
  Nullable,
  PageCursor,
  PageLimit,
  WorkspaceQuery,
} from '../schemas/common.ts';
import { AUTH_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { MediaSchema, presentMedia } from '../schemas/media.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const MediaQuery = Type.Object({
  ...WorkspaceQuery.properties,
  limit: PageLimit(100),
  before: Type.Optional(PageCursor()),
});

const MediaIdParams = IdParams('Media id');

export const mediaRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const baseUrl = deps.settings.publicBaseUrl;

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
