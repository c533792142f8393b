/**
 * Comments and the inbox: GET /posts/:id/comments, POST /posts/:id/comments/refresh, GET /inbox,
 * POST /inbox/read, POST /comments/:id/replies, POST /comments/:id/hide, DELETE /comments/:id.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  COMMENTS_PAGE_DEFAULT_LIMIT,
  deleteComment,
  hideComment,
  listInbox,
  listPostComments,
  MARK_READ_MAX_IDS,
  MAX_PAGE_SIZE,
  markCommentsRead,
  REPLY_KEY_MAX_LENGTH,
  refreshPostComments,
  replyToComment,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import {
  CommentSchema,
  CommentTargetSchema,
  presentComment,
  presentCommentTarget,
} from '../schemas/comments.ts';
import {
  AUTH_ERRORS,
  BODY_ERRORS,
  Data,
  errors,
  IdParams,
  NoContent,
  Nullable,
  PATH_ERRORS,
  WorkspaceQuery,
} from '../schemas/common.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const TAGS = ['Comments'];

const PageFields = {
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: COMMENTS_PAGE_DEFAULT_LIMIT,
      description: `Page size (1-${MAX_PAGE_SIZE}, default ${COMMENTS_PAGE_DEFAULT_LIMIT})`,
    }),
  ),
};

const NextCursor = Nullable(
  Type.String({ description: 'The cursor of the next page, null on the last' }),
);

const ReplyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: REPLY_KEY_MAX_LENGTH,
      description:
        'The same key answers the same reply: it is posted once, whatever happens to the request',
    }),
  ),
});

export const commentRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
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
          ...PageFields,
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
          'Makes the published targets due for a comments read now (the worker reads them shortly, on the read budget), except those read within METRICS_MIN_REFRESH_S and those gone or unsupported. 409 post_not_published when no target was published.',
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
          ...PageFields,
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

  app.post(
    '/comments/:id/replies',
    {
      schema: {
        tags: TAGS,
        operationId: 'replyToComment',
        summary: 'Reply to a comment',
        description:
          "Posts the reply on the comment's platform, as the connection, and answers it as a comment of yours. With Idempotency-Key the reply is posted at most once: the same key answers it again (or says its outcome is unknown after a crash; it is never sent twice). 400 when text is empty or over the platform's limit (the message names it); 409 comment_gone when the platform deleted the comment; 422 unsupported where the platform offers no reply.",
        security: SECURED,
        params: IdParams('Comment id'),
        headers: ReplyHeaders,
        body: Type.Object(
          { text: Type.String({ maxLength: 100_000 }) },
          { additionalProperties: false },
        ),
        response: {
          201: Data(CommentSchema, 'The reply'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, ...BODY_ERRORS, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'] as string | undefined;
      const sent = unwrap(
        await replyToComment(deps, actorOf(request), request.params.id, request.body.text, key),
      );
      return reply.code(201).send({ data: presentComment(sent) });
    },
  );

  app.post(
    '/comments/:id/hide',
    {
      schema: {
        tags: TAGS,
        operationId: 'hideComment',
        summary: 'Hide or show a comment',
        description:
          "Hides the comment on its platform (hidden: false shows it again). 422 unsupported, with the platform's reason, where can.hide is false.",
        security: SECURED,
        params: IdParams('Comment id'),
        body: Type.Object({ hidden: Type.Boolean() }, { additionalProperties: false }),
        response: {
          200: Data(CommentSchema, 'The comment'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, ...BODY_ERRORS, 409, 422),
        },
      },
    },
    async (request) => ({
      data: presentComment(
        unwrap(await hideComment(deps, actorOf(request), request.params.id, request.body.hidden)),
      ),
    }),
  );

  app.delete(
    '/comments/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'deleteComment',
        summary: 'Delete a comment',
        description:
          "Deletes the comment on its platform (one already gone there counts as deleted), then here. 422 unsupported, with the platform's reason, where can.delete is false.",
        security: SECURED,
        params: IdParams('Comment id'),
        response: {
          204: NoContent,
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 409, 422),
        },
      },
    },
    async (request, reply) => {
      unwrap(await deleteComment(deps, actorOf(request), request.params.id));
      return reply.code(204).send(null);
    },
  );
};
