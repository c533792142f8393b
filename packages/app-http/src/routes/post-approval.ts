/** POST /posts/:id/approve and POST /posts/:id/reject (docs/api.md#approval). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { approvePost, MAX_REJECTION_REASON_LENGTH, rejectPost } from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf } from '../context.ts';
import { unwrap } from '../errors.ts';
import { Data, IdParams } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors } from '../schemas/error-responses.ts';
import { PostSchema, presentPost } from '../schemas/posts.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const RejectBody = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: MAX_REJECTION_REASON_LENGTH,
      description: `Why (1-${MAX_REJECTION_REASON_LENGTH} characters, not blank): shown on the post as rejection_reason and sent in post.rejected`,
    }),
  },
  { additionalProperties: false },
);

const WHO =
  'Owners and admins of the workspace only (403 forbidden for a member), and not the post creator (403 own_post). A post that is not pending_approval is 409 post_not_pending; one edited while you decided is 409 conflict.';

export const postApprovalRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps },
) => {
  app.post(
    '/posts/:id/approve',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'approvePost',
        summary: 'Approve a post waiting for approval',
        description: `The post is scheduled as its creator asked (status scheduled, or queued when immediate) and its publish job enqueued; if its time has passed meanwhile it is published at once. Sends post.approved. ${WHO}`,
        security: SECURED,
        params: IdParams('Post id'),
        response: {
          200: Data(PostSchema, 'The approved post'),
          ...errors(...AUTH_ERRORS, 400, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const meta = { requestId: request.id };
      const post = unwrap(await approvePost(deps, actorOf(request), request.params.id, meta));
      return { data: presentPost(post) };
    },
  );

  app.post(
    '/posts/:id/reject',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'rejectPost',
        summary: 'Reject a post waiting for approval',
        description: `The post becomes rejected (terminal: it is never published; its targets are cancelled), with reason shown as rejection_reason. Sends post.rejected. ${WHO}`,
        security: SECURED,
        params: IdParams('Post id'),
        body: RejectBody,
        response: {
          200: Data(PostSchema, 'The rejected post'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const meta = { requestId: request.id };
      const actor = actorOf(request);
      const post = unwrap(await rejectPost(deps, actor, request.params.id, request.body, meta));
      return { data: presentPost(post) };
    },
  );
};
