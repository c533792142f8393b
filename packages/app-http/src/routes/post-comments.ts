/**
 * GET /posts/:id/comments and POST /posts/:id/comments/refresh: the comments under one post.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listPostComments, refreshPostComments } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  CommentPageFields,
  CommentSchema,
  CommentTargetSchema,
  NextCursor,
  presentComment,
  presentCommentTarget,
} from '../schemas/comments.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const TAGS = ['Comments'];

export const postCommentRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/posts/:id/comments',
    {
      schema: {
        tags: TAGS,
        operationId: 'listPostComments',
        summary: "A post's comments",
        description:
          "The comments read under the post's published targets (or target_id's), newest first (created_at, then id), with what each platform lets you do to each (can), and where each target's reading stands (targets: `unsupported` for TikTok and Pinterest posts, whose comments are not read).",
        security: SECURED,
        params: IdParams('Post id'),
        querystring: Type.Object({
          target_id: Type.Optional(Type.String({ description: 'Only this target' })),
          ...CommentPageFields,
        }),
        response: {
          200: Type.Object(
            {
              data: Type.Array(CommentSchema),
              next_cursor: NextCursor,
              targets: Type.Array(CommentTargetSchema),
            },
            { description: 'The comments, newest first' },
          ),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => {
      const { target_id: targetId, cursor, limit } = request.query;
      const list = unwrap(
        await listPostComments(deps, actorOf(request), request.params.id, {
          ...(targetId === undefined ? {} : { targetId }),
          ...(cursor === undefined ? {} : { cursor }),
          ...(limit === undefined ? {} : { limit }),
        }),
      );
      return {
        data: list.items.map(presentComment),
        next_cursor: list.nextCursor,
        targets: list.targets.map(presentCommentTarget),
      };
    },
  );

  app.post(
    '/posts/:id/comments/refresh',
    {
      schema: {
        tags: TAGS,
        operationId: 'refreshPostComments',
        summary: "Read a post's comments again soon",
        description:
          'Makes the published targets due for a comments read now (the worker reads them shortly, on the read budget), except those read within METRICS_MIN_REFRESH_S and those gone. 409 post_not_published when no target was published.',
        security: SECURED,
        params: IdParams('Post id'),
        response: {
          202: Data(Type.Array(CommentTargetSchema), 'Where each target stands'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 409),
        },
      },
    },
    async (request, reply) => {
      const states = unwrap(await refreshPostComments(deps, actorOf(request), request.params.id));
      return reply.code(202).send({ data: states.map(presentCommentTarget) });
    },
  );
};
