/** GET /post-series/:id, DELETE /post-series/:id: repeating posts (created by POST /posts/schedule). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getSeries, stopSeries } from '@social-publisher/domain';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { PostSeriesSchema, presentSeries } from '../schemas/post-series.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const SeriesIdParams = IdParams('Post series id (series_id of its posts)');

export const postSeriesRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/post-series/:id',
    {
      schema: {
        operationId: 'getPostSeries',
        tags: ['Posts'],
        summary: 'Get a repeating post',
        description:
          'The rule, the occurrences that have their post, and the next times the rule gives.',
        security: SECURED,
        params: SeriesIdParams,
        response: {
          200: Data(PostSeriesSchema, 'The series'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => ({
      data: presentSeries(unwrap(await getSeries(deps, actorOf(request), request.params.id))),
    }),
  );

  app.delete(
    '/post-series/:id',
    {
      schema: {
        operationId: 'stopPostSeries',
        tags: ['Posts'],
        summary: 'Stop a repeating post',
        description:
          'No further occurrence is created and those not started (scheduled, queued or waiting for approval) are cancelled; published ones stay. Stopping twice is fine.',
        security: SECURED,
        params: SeriesIdParams,
        response: {
          200: Data(PostSeriesSchema, 'The stopped series'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => ({
      data: presentSeries(unwrap(await stopSeries(deps, actorOf(request), request.params.id))),
    }),
  );
};
