/**
 * POST /posts/validate (a dry run of one post) and POST /posts/bulk (up to 100 posts, each with
 * its own result; `?dry_run=true` validates only). One Idempotency-Key covers a whole bulk.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type BatchEntry,
  createPostBatch,
  MAX_BULK_POSTS,
  validatePostBatch,
} from '@social-publisher/domain';
import { type TSchema, Type } from 'typebox';
import { clientGoneSignal } from '../client-gone.ts';
import { actorOf, contextOf } from '../context.ts';
import { compileItemCheck } from '../item-check.ts';
import { Data, WorkspaceField } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors } from '../schemas/error-responses.ts';
import { BatchSummarySchema, ValidationSchema } from '../schemas/post-batch.ts';
import { batchItemBody, IdempotencyHeaders, validateBody } from '../schemas/post-input.ts';
import { withBodyEnvelope } from '../validator-compiler.ts';
import { createdResults, dryRunResults } from './post-batch-results.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const DryRunQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Boolean({ default: false, description: 'true: validate every post, create nothing' }),
  ),
});

/** The body of POST /posts/bulk, around its posts' schema. */
const bulkBody = (post: TSchema) =>
  Type.Object(
    {
      workspace_id: WorkspaceField,
      posts: Type.Array(post, { minItems: 1, maxItems: MAX_BULK_POSTS }),
    },
    { additionalProperties: false },
  );

/** What POST /posts/validate checks as a request; the post's own fields are checked apart. */
const ValidateEnvelope = Type.Object({ workspace_id: WorkspaceField });

export const postBatchRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  const checkPost = compileItemCheck(batchItemBody(deps.platforms));
  const entryOf = (post: unknown): BatchEntry => ({ input: post, problems: checkPost(post) });

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
      validatorCompiler: withBodyEnvelope(ValidateEnvelope),
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, ...post } = request.body as { workspace_id?: string };
      const ctx = await contextOf(deps, request, workspaceId);
      const [validation] = await validatePostBatch(deps, ctx, [entryOf(post)], {
        signal: clientGoneSignal(request, reply),
      });
      return { data: validation as NonNullable<typeof validation> };
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
        body: bulkBody(batchItemBody(deps.platforms)),
        response: {
          200: Data(BatchSummarySchema, 'One result per post, in order'),
          ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
        },
      },
      validatorCompiler: withBodyEnvelope(bulkBody(Type.Unknown())),
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, posts } = request.body as {
        workspace_id?: string;
        posts: unknown[];
      };
      const ctx = await contextOf(deps, request, workspaceId);
      const positions = posts.map((_, index) => ({ index }));
      const entries = posts.map(entryOf);
      if ((request.query as { dry_run?: boolean }).dry_run === true) {
        const signal = clientGoneSignal(request, reply);
        return {
          data: dryRunResults(await validatePostBatch(deps, ctx, entries, { signal }), positions),
        };
      }
      const run = async () => ({
        statusCode: 200,
        body: {
          data: createdResults(
            await createPostBatch(deps, ctx, entries, { requestId: request.id }),
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
