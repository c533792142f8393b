/** POST /posts/:id/unpublish: take a published post down from its platforms. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_TARGETS, unpublishPost } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { OPTIONAL_BODY } from '../plugins/openapi.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors } from '../schemas/error-responses.ts';
import { PostSchema, presentPost } from '../schemas/posts.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const UnpublishBody = Type.Object(
  {
    target_ids: Type.Optional(
      Type.Array(
        Type.String({ maxLength: 64, description: 'A target of the post (post_targets[].id)' }),
        {
          minItems: 1,
          maxItems: MAX_TARGETS,
          description: `The targets to take down (1-${MAX_TARGETS}); default: every published one`,
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const postUnpublishRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps },
) => {
  app.post(
    '/posts/:id/unpublish',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'unpublishPost',
        summary: 'Take a published post down',
        description:
          'Deletes the post from its platforms in the background, with its thread\'s follow-ups and its first comment: the asked targets become `removing`, then `removed` (a post already gone counts) or `remove_failed` (error_code, error_message). A target whose platform offers no delete stays `published` with `unpublish: "unsupported"`. `post.unpublished` is sent once every asked target has ended. Asking again while targets are removing changes nothing; a `remove_failed` target may be asked again. 409 post_not_published when the post has no published target (or is still publishing); 400 naming the target_ids that are not published targets of the post.',
        security: SECURED,
        params: IdParams('Post id'),
        body: UnpublishBody,
        [OPTIONAL_BODY]: true,
        response: {
          202: Data(PostSchema, 'The post as asked: its targets removing (or unsupported)'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 404, 409),
        },
      },
      // The body is optional: a POST without one asks for every published target.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request, reply) => {
      const targetIds = request.body.target_ids;
      const post = unwrap(
        await unpublishPost(
          deps,
          actorOf(request),
          request.params.id,
          targetIds === undefined ? {} : { targetIds },
          { requestId: request.id },
        ),
      );
      return reply.code(202).send({ data: presentPost(post) });
    },
  );
};
