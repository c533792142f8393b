/**
 * POST /comments/:id/replies, POST /comments/:id/hide and DELETE /comments/:id: acting on one
 * comment on its platform.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  deleteComment,
  hideComment,
  REPLY_KEY_MAX_LENGTH,
  replyToComment,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { CommentSchema, presentComment } from '../schemas/comments.ts';
import { Data, IdParams, NoContent } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const TAGS = ['Comments'];

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
          { text: Type.String({ minLength: 1, maxLength: 100_000 }) },
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
