/** POST /posts, POST /posts/schedule, GET /posts, GET /posts/:id, DELETE /posts/:id. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  type CreatePostInput,
  cancelPost,
  createPost,
  createRepeatingPost,
  getPost,
  listPosts,
  listPostsPage,
  MAX_PAGE_SIZE,
  type PlatformCatalog,
  POST_STATUSES,
  type PostMode,
  validationFailed,
} from '@social-publisher/domain';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf, contextOf } from '../context.ts';
import { fromDomainError, unwrap } from '../errors.ts';
import { Data, IdParams, Nullable, PageCursor, WorkspaceQuery } from '../schemas/common.ts';
import { AUTH_ERRORS, BODY_ERRORS, errors, PATH_ERRORS } from '../schemas/error-responses.ts';
import { createPostBody, IdempotencyHeaders } from '../schemas/post-input.ts';
import { scheduleBody } from '../schemas/post-series.ts';
import { PostSchema, presentPost } from '../schemas/posts.ts';
import { type RouteOptions, SECURED } from './route-options.ts';

const PostsQuery = Type.Object({
  ...WorkspaceQuery.properties,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Page size (1-${MAX_PAGE_SIZE}); without it every post is returned`,
    }),
  ),
  before: Type.Optional(PageCursor('next_cursor of the previous page (requires limit)')),
  status: Type.Optional(
    Type.Enum([...POST_STATUSES], {
      description:
        'Only posts in this status. status=pending_approval with workspace_id, asked by an owner or an admin of that workspace: every post waiting for approval there, whoever created it',
    }),
  ),
});

const createSchema = (mode: PostMode, catalog: PlatformCatalog) => ({
  tags: ['Posts'],
  operationId: mode === 'now' ? 'createPost' : 'schedulePost',
  summary: mode === 'now' ? 'Publish a post now' : 'Schedule a post',
  description:
    "Creates the post and one target per destination, then enqueues the publish job. Publishing happens in the background: follow it with GET /posts/:id or a webhook. In a workspace that requires approval, a member's post is created pending_approval instead, and waits for an owner or an admin (POST /posts/{id}/approve).",
  security: SECURED,
  headers: IdempotencyHeaders,
  body: mode === 'now' ? createPostBody(catalog) : scheduleBody(catalog),
  response: {
    201: Data(PostSchema, 'The created post (Location: /posts/{id})'),
    ...errors(...AUTH_ERRORS, ...BODY_ERRORS, 403, 409),
  },
});

const PostIdParams = IdParams('Post id');

export const postRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (
  app,
  { deps, idempotency },
) => {
  const create = (mode: PostMode) => async (request: FastifyRequest) => {
    const body = (request.body ?? {}) as CreatePostInput & {
      workspace_id?: string;
      recurrence?: unknown;
    };
    const { workspace_id: workspaceId, recurrence, ...input } = body;
    const ctx = await contextOf(deps, request, workspaceId);
    const meta = { requestId: request.id };
    const post = unwrap(
      mode === 'scheduled' && recurrence !== undefined
        ? await createRepeatingPost(deps, ctx, input, recurrence, meta)
        : await createPost(deps, ctx, input, mode, meta),
    );
    return { statusCode: 201, body: { data: presentPost(post) } };
  };

  for (const mode of ['now', 'scheduled'] as const) {
    const url = mode === 'now' ? '/posts' : '/posts/schedule';
    app.post(url, { schema: createSchema(mode, deps.platforms) }, async (request, reply) => {
      const run = create(mode);
      const key = request.headers['idempotency-key'] as string | undefined;
      const actor = actorOf(request);
      const response =
        key === undefined
          ? { ...(await run(request)), replayed: false }
          : await idempotency.run(
              `${actor.userId}|${actor.keyAccountId ?? 'jwt'}|POST ${url}`,
              key,
              request.body,
              () => run(request),
            );
      const { data } = response.body as { data: { id: string } };
      reply.header('Location', `/posts/${data.id}`);
      if (response.replayed) reply.header('Idempotent-Replayed', 'true');
      return reply.code(201).send(response.body as { data: ReturnType<typeof presentPost> });
    });
  }

  app.get(
    '/posts',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'listPosts',
        summary: 'List your posts',
        description:
          'Every post you created in an account you can act in now (your personal account and the teams you are a member of), newest first (created_at, then id, descending), with its targets. With workspace_id: only those in that team. With status: only those in it (status=pending_approval&workspace_id= for an owner or admin: every post waiting for approval in that team, whoever created it). Without limit: every post, no pagination. With limit: at most that many posts plus next_cursor; pass it as before to get the next page (null on the last page).',
        security: SECURED,
        querystring: PostsQuery,
        response: {
          200: Type.Object(
            {
              data: Type.Array(PostSchema),
              next_cursor: Type.Optional(
                Nullable(
                  Type.String({
                    description:
                      'Only with limit: the before of the next page, null when no post follows',
                  }),
                ),
              ),
            },
            { description: 'Your posts, newest first' },
          ),
          ...errors(...AUTH_ERRORS, 400, 403),
        },
      },
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, limit, before, status } = request.query;
      const actor = actorOf(request);
      const accountId =
        workspaceId === undefined || workspaceId === ''
          ? undefined
          : (await contextOf(deps, request, workspaceId)).accountId;
      if (limit === undefined) {
        if (before !== undefined) {
          throw fromDomainError(validationFailed([{ field: 'before', message: 'requires limit' }]));
        }
        const posts = await listPosts(deps, actor, accountId, status);
        // Every post at once can be megabytes. The schema's compiled serializer builds the text
        // by concatenation, which costs as much again to flatten and encode for the socket;
        // JSON.stringify writes it flat, and one Buffer.from encodes it for the socket at once.
        // presentPost yields exactly the schema's fields in its order, so the bytes are the
        // same (posts-list.test.ts compares them with the paged form's).
        const body = Buffer.from(JSON.stringify({ data: posts.map(presentPost) }));
        // A Buffer is sent as it is (only objects go through the serializer); the reply's type
        // names the object form, which the response schema documents.
        return reply.type('application/json; charset=utf-8').send(body as never);
      }
      const page = unwrap(
        await listPostsPage(
          deps,
          actor,
          { limit, ...(before === undefined ? {} : { before }) },
          accountId,
          status,
        ),
      );
      return { data: page.posts.map(presentPost), next_cursor: page.nextCursor };
    },
  );

  app.get(
    '/posts/:id',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'getPost',
        summary: 'Get a post',
        description: 'The post with its targets: per-target status, attempts and error details.',
        security: SECURED,
        params: PostIdParams,
        response: { 200: Data(PostSchema, 'The post'), ...errors(...AUTH_ERRORS, ...PATH_ERRORS) },
      },
    },
    async (request) => ({
      data: presentPost(unwrap(await getPost(deps, actorOf(request), request.params.id))),
    }),
  );

  app.delete(
    '/posts/:id',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'cancelPost',
        summary: 'Cancel a post',
        description:
          'Cancels a scheduled, queued or pending_approval post: its job is removed, the post and its pending targets become cancelled. Cancelling twice is fine; once publishing has begun it is a 409.',
        security: SECURED,
        params: PostIdParams,
        response: {
          200: Data(PostSchema, 'The cancelled post'),
          ...errors(...AUTH_ERRORS, ...PATH_ERRORS, 409),
        },
      },
    },
    async (request) => ({
      data: presentPost(unwrap(await cancelPost(deps, actorOf(request), request.params.id))),
    }),
  );
};
