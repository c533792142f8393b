/** GET /analytics/daily: per day of publication, the latest numbers of that day's posts summed. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ANALYTICS_DEFAULT_DAYS,
  ANALYTICS_MAX_DAYS,
  type DailyRequest,
  getDailyAnalytics,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, WorkspaceQuery } from '../schemas/common.ts';
import { AUTH_ERRORS, errors } from '../schemas/error-responses.ts';
import { DailyMetricsSchema, presentDay } from '../schemas/metrics.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

/** A day as the query names it; the use case checks it is one (and names the field if not). */
const Day = (description: string) =>
  Type.Optional(
    Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
      description: `${description}, YYYY-MM-DD (UTC)`,
    }),
  );

type DailyQueryText = Partial<
  Record<'workspace_id' | 'social_account_id' | 'platform' | 'from' | 'to', string>
>;

/** The query's snake_case names as the use case's, the absent ones left out. */
function dailyRequestOf(query: DailyQueryText): DailyRequest {
  const names = {
    socialAccountId: query.social_account_id,
    workspaceId: query.workspace_id,
    platform: query.platform,
    from: query.from,
    to: query.to,
  };
  return Object.fromEntries(
    Object.entries(names).filter(([, value]) => value !== undefined),
  ) as DailyRequest;
}

export const analyticsRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  const DailyQuery = Type.Object({
    ...WorkspaceQuery.properties,
    social_account_id: Type.Optional(
      Type.String({ description: 'Only the posts of this connection; default: every connection' }),
    ),
    platform: Type.Optional(
      Type.Enum([...deps.platforms.names], { description: 'Only the targets on this platform' }),
    ),
    from: Day(`First day; default: ${ANALYTICS_DEFAULT_DAYS} days up to to`),
    to: Day('Last day (inclusive); default: today'),
  });

  app.get(
    '/analytics/daily',
    {
      schema: {
        tags: ['Metrics'],
        operationId: 'getDailyAnalytics',
        summary: 'Numbers per day',
        description: `Per day (UTC) on which posts were published, oldest first: how many posts, and the latest numbers of their targets summed (null when no target reports a metric). Days without a published post are left out. Of one connection (social_account_id) or of every connection of the account (personal, or workspace_id). At most ${ANALYTICS_MAX_DAYS} days per request; from after to is a 400.`,
        security: SECURED,
        querystring: DailyQuery,
        response: {
          200: Data(Type.Array(DailyMetricsSchema), 'The days with published posts, oldest first'),
          ...errors(...AUTH_ERRORS, 400, 403, 404),
        },
      },
    },
    async (request) => ({
      data: unwrap(
        await getDailyAnalytics(deps, actorOf(request), dailyRequestOf(request.query)),
      ).map(presentDay),
    }),
  );
};
