/**
 * POST /posts/validate (a dry run of one post) and POST /posts/bulk (up to 100 posts, each with
 * its own result; `?dry_run=true` validates only). One Idempotency-Key covers a whole bulk.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type BatchItem,
  createPostBatch,
  MAX_BULK_POSTS,
  modeOf,
  validatePost,
  validatePostBatch,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { AUTH_ERRORS, BODY_ERRORS, Data, errors, WorkspaceField } from '../schemas/common.ts';
import { BatchSummarySchema, ValidationSchema } from '../schemas/post-batch.ts';
import { batchItemBody, IdempotencyHeaders, validateBody } from '../schemas/post-input.ts';
import { createdResults, dryRunResults } from './post-batch-results.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const DryRunQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Boolean({ default: false, description: 'true: validate every post, create nothing' }),
  ),
});

export const postBatchRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  app.post(
    '/posts/validate',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'validatePost',
        summary: 'Check a post without creating it',
        description:
          'Runs every check POST /posts (or /posts/schedule, when scheduled_at is given) would, and asks each media URL whether it answers and is what its name says (through the same SSRF guard as publishing). Creates nothing.',
        security: SECURED,
        body: validateBody(deps.platforms),
        response: {
          200: Data(ValidationSchema, 'valid, and every problem found'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403),
        },
      },
    },
    async (request) => {
      const { workspace_id: workspaceId, ...input } = request.body as BatchItem & {
        workspace_id?: string;
      };
      const ctx = await contextOf(deps, request, workspaceId);
      return { data: await validatePost(deps, ctx, input, modeOf(input)) };
    },
  );

  app.post(
    '/posts/bulk',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'createPostsBulk',
        summary: 'Create up to 100 posts',
        description: `Up to ${MAX_BULK_POSTS} posts, immediate or scheduled (with scheduled_at), each created on its own: every result says 201 with the post, or the status and error POST /posts would answer. A refused post never stops the others, and none is half-created. With dry_run=true every post is validated as POST /posts/validate does and nothing is created. One Idempotency-Key covers the whole request.`,
        security: SECURED,
        headers: IdempotencyHeaders,
        querystring: DryRunQuery,
        body: Type.Object(
          {
            workspace_id: WorkspaceField,
            posts: Type.Array(batchItemBody(deps.platforms), {
              minItems: 1,
              maxItems: MAX_BULK_POSTS,
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Data(BatchSummarySchema, 'One result per post, in order'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, posts } = request.body as {
        workspace_id?: string;
        posts: BatchItem[];
      };
      const ctx = await contextOf(deps, request, workspaceId);
      const positions = posts.map((_, index) => ({ index }));
      if ((request.query as { dry_run?: boolean }).dry_run === true) {
        return { data: dryRunResults(await validatePostBatch(deps, ctx, posts), positions) };
      }
      const run = async () => ({
        statusCode: 200,
        body: {
          data: createdResults(
            await createPostBatch(deps, ctx, posts, { requestId: request.id }),
            positions,
          ),
        },
      });
      const key = request.headers['idempotency-key'] as string | undefined;
      if (key === undefined) return (await run()).body;
      const actor = actorOf(request);
      const response = await idempotency.run(
        `${actor.userId}|${actor.keyAccountId ?? 'jwt'}|POST /posts/bulk`,
        key,
        request.body,
        run,
      );
      if (response.replayed) reply.header('Idempotent-Replayed', 'true');
      return response.body as Awaited<ReturnType<typeof run>>['body'];
    },
  );
};
