/** PUT/GET /social-accounts/:id/slots and POST /posts/queue: posting slots. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CreatePostInput, getSlots, putSlots, queuePost } from '@social-publisher/domain';
import type { FastifyRequest } from 'fastify';
import { actorOf, contextOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { createPostBody, IdempotencyHeaders } from '../schemas/post-input.ts';
import { PostSchema, presentPost } from '../schemas/posts.ts';
import { presentSlots, SlotSetSchema, SlotsBody } from '../schemas/slots.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const ConnectionIdParams = IdParams('Social account (connection) id');
const QUEUE_URL = '/posts/queue';

export const slotRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  app.put(
    '/social-accounts/:id/slots',
    {
      schema: {
        operationId: 'putSocialAccountSlots',
        tags: ['Social accounts'],
        summary: 'Set posting slots',
        description:
          "Replaces the weekly times POST /posts/queue schedules this connection's posts at.",
        security: SECURED,
        params: ConnectionIdParams,
        body: SlotsBody,
        response: {
          200: Data(SlotSetSchema, 'The slots as stored'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 404),
        },
      },
    },
    async (request) => ({
      data: presentSlots(
        unwrap(await putSlots(deps, actorOf(request), request.params.id, request.body)),
      ),
    }),
  );

  app.get(
    '/social-accounts/:id/slots',
    {
      schema: {
        operationId: 'getSocialAccountSlots',
        tags: ['Social accounts'],
        summary: 'Get posting slots',
        description: "The connection's weekly slots (an empty list in UTC when none are set).",
        security: SECURED,
        params: ConnectionIdParams,
        response: {
          200: Data(SlotSetSchema, 'The slots'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS),
        },
      },
    },
    async (request) => ({
      data: presentSlots(unwrap(await getSlots(deps, actorOf(request), request.params.id))),
    }),
  );

  const queue = async (request: FastifyRequest) => {
    const body = (request.body ?? {}) as CreatePostInput & { workspace_id?: string };
    const { workspace_id: workspaceId, ...input } = body;
    const ctx = await contextOf(deps, request, workspaceId);
    const post = unwrap(await queuePost(deps, ctx, input, { requestId: request.id }));
    return { statusCode: 201, body: { data: presentPost(post) } };
  };

  app.post(
    QUEUE_URL,
    {
      schema: {
        operationId: 'queuePost',
        tags: ['Posts'],
        summary: 'Schedule a post at the next free slot',
        description:
          'The body of POST /posts, scheduled at the earliest slot (strictly in the future) at which none of its connections has a post scheduled yet. Concurrent requests never get the same slot. A connection without slots: 400 no_slots.',
        security: SECURED,
        headers: IdempotencyHeaders,
        body: createPostBody(deps.platforms),
        response: {
          201: Data(PostSchema, 'The scheduled post (scheduled_at is the slot)'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'] as string | undefined;
      const actor = actorOf(request);
      const response =
        key === undefined
          ? { ...(await queue(request)), replayed: false }
          : await idempotency.run(
              `${actor.userId}|${actor.keyAccountId ?? 'jwt'}|POST ${QUEUE_URL}`,
              key,
              request.body,
              () => queue(request),
            );
      const { data } = response.body as { data: { id: string } };
      reply.header('Location', `/posts/${data.id}`);
      if (response.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(201).send(response.body as { data: ReturnType<typeof presentPost> });
    },
  );
};
