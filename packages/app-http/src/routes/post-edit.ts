/** PATCH /posts/:id: edit or reschedule a post no worker has started. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type EditPostInput, editPost } from '@social-publisher/domain';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors } from '../schemas/error-responses.ts';
import { editPostBody, IdempotencyHeaders } from '../schemas/post-input.ts';
import { PostSchema, presentPost } from '../schemas/posts.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

export const postEditRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  app.patch(
    '/posts/:id',
    {
      schema: {
        operationId: 'updatePost',
        tags: ['Posts'],
        summary: 'Edit or reschedule a post',
        description:
          'Changes content, media_urls, platform_options, social_account_ids (the full list: left-out connections lose their target, new ones get one), thread ([] removes it), first_comment (null removes it) or scheduled_at, with the checks of create. Allowed until a worker starts publishing the post; after that, or once it is finished or cancelled, 409 post_not_editable. A new scheduled_at moves the publish job: the post is published at the new time only.',
        security: SECURED,
        headers: IdempotencyHeaders,
        params: IdParams('Post id'),
        body: editPostBody(deps.platforms),
        response: {
          200: Data(PostSchema, 'The post as it now is'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const { id } = request.params;
      const run = async () => {
        const input = (request.body ?? {}) as EditPostInput;
        const post = unwrap(await editPost(deps, actor, id, input, { requestId: request.id }));
        return { statusCode: 200, body: { data: presentPost(post) } };
      };
      const key = request.headers['idempotency-key'] as string | undefined;
      const response =
        key === undefined
          ? { ...(await run()), replayed: false }
          : await idempotency.run(
              `${actor.userId}|${actor.keyAccountId ?? 'jwt'}|PATCH /posts/${id}`,
              key,
              request.body,
              run,
            );
      if (response.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(200).send(response.body as { data: ReturnType<typeof presentPost> });
    },
  );
};
