/**
 * GET /posts/:id/metrics, GET /posts/:id/metrics/history, POST /posts/:id/metrics/refresh: a
 * published post's numbers. (GET /metrics, without a post, is Prometheus's: routes/metrics.ts.)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  getMetricsHistory,
  getPostMetrics,
  METRICS_HISTORY_DEFAULT_LIMIT,
  refreshPostMetrics,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams, Nullable, PageCursor, PageLimit } from '../schemas/common.ts';
import { AUTH_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import {
  PostMetricsSchema,
  presentPostMetrics,
  presentSnapshot,
  SnapshotSchema,
} from '../schemas/metrics.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const PostIdParams = IdParams('Post id');

const HistoryQuery = Type.Object({
  target_id: Type.Optional(
    Type.String({ description: 'Only this target (post_targets[].id); default: every target' }),
  ),
  limit: PageLimit(METRICS_HISTORY_DEFAULT_LIMIT),
  before: Type.Optional(PageCursor()),
});

export const postMetricsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/posts/:id/metrics',
    {
      schema: {
        tags: ['Metrics'],
        operationId: 'getPostMetrics',
        summary: "Get a post's numbers",
        description:
          "The latest numbers of each published target (views, impressions, reach, likes, comments, shares, quotes, saves, clicks: null when the platform does not report one), where each target's reads stand (state, taken_at, next_refresh_at, error), and the totals over the targets. A post with no published target answers an empty targets list.",
        security: SECURED,
        params: PostIdParams,
        response: {
          200: Data(PostMetricsSchema, "The post's numbers"),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => ({
      data: presentPostMetrics(
        unwrap(await getPostMetrics(deps, actorOf(request), request.params.id)),
      ),
    }),
  );

  app.get(
    '/posts/:id/metrics/history',
    {
      schema: {
        tags: ['Metrics'],
        operationId: 'getPostMetricsHistory',
        summary: "A post's numbers over time",
        description:
          "Every read of the post's targets (or of target_id), oldest first (taken_at, then id), at most limit of them plus next_cursor; pass it as before to get the next page (null on the last page). Reads older than METRICS_RETENTION_DAYS are deleted.",
        security: SECURED,
        params: PostIdParams,
        querystring: HistoryQuery,
        response: {
          200: Type.Object(
            {
              data: Type.Array(SnapshotSchema),
              next_cursor: Nullable(
                Type.String({ description: 'The before of the next page, null on the last' }),
              ),
            },
            { description: 'The reads, oldest first' },
          ),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => {
      const { target_id: targetId, limit = METRICS_HISTORY_DEFAULT_LIMIT, before } = request.query;
      const page = unwrap(
        await getMetricsHistory(deps, actorOf(request), request.params.id, {
          limit,
          ...(targetId === undefined ? {} : { targetId }),
          ...(before === undefined ? {} : { cursor: before }),
        }),
      );
      return { data: page.items.map(presentSnapshot), next_cursor: page.nextCursor };
    },
  );

  app.post(
    '/posts/:id/metrics/refresh',
    {
      schema: {
        tags: ['Metrics'],
        operationId: 'refreshPostMetrics',
        summary: "Read a post's numbers again soon",
        description:
          'Makes the published targets due for a read now (the worker reads them shortly), except those read within METRICS_MIN_REFRESH_S (60 s) and those gone; answers the numbers as they are now. 409 post_not_published when no target of the post was published.',
        security: SECURED,
        params: PostIdParams,
        response: {
          202: Data(PostMetricsSchema, "The post's numbers as they are; fresher ones follow"),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 409),
        },
      },
    },
    async (request, reply) => {
      const refreshed = unwrap(await refreshPostMetrics(deps, actorOf(request), request.params.id));
      return reply.code(202).send({ data: presentPostMetrics(refreshed) });
    },
  );
};
