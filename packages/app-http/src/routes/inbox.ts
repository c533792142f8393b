/** GET /inbox and POST /inbox/read: the comments across the posts of an account. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listInbox, MARK_READ_MAX_IDS, markCommentsRead } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  CommentPageFields,
  CommentSchema,
  NextCursor,
  presentComment,
} from '../schemas/comments.ts';
import { Data, WorkspaceQuery } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors } from '../schemas/error-responses.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const TAGS = ['Comments'];

export const inboxRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/inbox',
    {
      schema: {
        tags: TAGS,
        operationId: 'listInbox',
        summary: 'Comments across your posts',
        description:
          "The comments under every post of your personal account (or workspace_id's), newest first, with read. unread=true: only those not marked read; platform: only that platform's.",
        security: SECURED,
        querystring: Type.Object({
          ...WorkspaceQuery.properties,
          platform: Type.Optional(Type.Enum([...deps.platforms.names])),
          unread: Type.Optional(Type.Boolean({ description: 'true: only the unread ones' })),
          ...CommentPageFields,
        }),
        response: {
          200: Type.Object(
            { data: Type.Array(CommentSchema), next_cursor: NextCursor },
            { description: 'The comments, newest first' },
          ),
          ...errors(...AUTH_ERRORS, 400, 403),
        },
      },
    },
    async (request) => {
      const { workspace_id: workspaceId, platform, unread, cursor, limit } = request.query;
      const page = unwrap(
        await listInbox(deps, actorOf(request), {
          ...(workspaceId === undefined ? {} : { workspaceId }),
          ...(platform === undefined ? {} : { platform }),
          ...(unread ? { unreadOnly: true } : {}),
          ...(cursor === undefined ? {} : { cursor }),
          ...(limit === undefined ? {} : { limit }),
        }),
      );
      return { data: page.items.map(presentComment), next_cursor: page.nextCursor };
    },
  );

  app.post(
    '/inbox/read',
    {
      schema: {
        tags: TAGS,
        operationId: 'markCommentsRead',
        summary: 'Mark comments read',
        description:
          'Marks read the comments of comment_ids within your reach (others and unknown ids are left alone); answers how many changed.',
        security: SECURED,
        body: Type.Object(
          {
            comment_ids: Type.Array(Type.String({ maxLength: 64 }), {
              minItems: 1,
              maxItems: MARK_READ_MAX_IDS,
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Data(Type.Object({ marked: Type.Integer({ minimum: 0 }) }), 'How many changed'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS),
        },
      },
    },
    async (request) => ({
      data: {
        marked: unwrap(await markCommentsRead(deps, actorOf(request), request.body.comment_ids)),
      },
    }),
  );
};
