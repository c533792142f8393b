/**
 * The JSON body of a post, shared by POST /posts, /posts/schedule, /posts/validate and
 * /posts/bulk: each platform's `platform_options` schema comes from its descriptor.
 */
import type { PlatformCatalog } from '@social-publisher/domain';
import {
  MAX_CONTENT_LENGTH,
  MAX_MEDIA_URLS,
  MAX_TARGETS,
  MAX_THREAD_PARTS,
  MAX_URL_LENGTH,
  SANDBOX_OUTCOMES,
} from '@social-publisher/domain';
import { Type } from 'typebox';
import { WorkspaceField } from './common.ts';

const SANDBOX_OUTCOME = {
  enum: [...SANDBOX_OUTCOMES],
  description:
    'Sandbox connections only: published (default), failed (permanent) or transient (fails twice, then publishes)',
};

/** A platform's options schema, plus the sandbox_outcome every platform takes. */
function optionsSchemaOf(catalog: PlatformCatalog, name: string): Record<string, unknown> {
  const schema = catalog.rules(name)?.optionsSchema ?? {};
  const properties = schema.properties as Record<string, unknown> | undefined;
  return { ...schema, properties: { ...properties, sandbox_outcome: SANDBOX_OUTCOME } };
}

/** `platform_options`: one optional entry per platform, each with its descriptor's schema. */
const platformOptionsInput = (catalog: PlatformCatalog) =>
  Type.Object(
    Object.fromEntries(
      catalog.names.map((name) => [
        name,
        Type.Optional(Type.Unsafe<Record<string, unknown>>(optionsSchemaOf(catalog, name))),
      ]),
    ),
    { additionalProperties: false, description: 'Per-platform options keyed by platform name' },
  );

/** The longest Idempotency-Key taken (an HTTP concern: the domain never sees the key). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const postFields = (catalog: PlatformCatalog) => ({
  content: Type.Optional(
    Type.String({
      maxLength: MAX_CONTENT_LENGTH,
      description: `At most ${MAX_CONTENT_LENGTH} characters; default ""`,
    }),
  ),
  social_account_ids: Type.Optional(
    Type.Array(Type.String({ format: 'uuid' }), {
      maxItems: MAX_TARGETS,
      description: 'Connections to publish to (preferred targeting)',
    }),
  ),
  platforms: Type.Optional(
    Type.Array(Type.Enum([...catalog.names]), {
      maxItems: MAX_TARGETS,
      description: "Legacy targeting: the account's active connection for each platform",
    }),
  ),
  media_urls: Type.Optional(
    Type.Array(Type.String({ maxLength: MAX_URL_LENGTH }), {
      maxItems: MAX_MEDIA_URLS,
      description: 'Public http(s) URLs of the media',
    }),
  ),
  workspace_id: WorkspaceField,
  platform_options: Type.Optional(platformOptionsInput(catalog)),
  thread: Type.Optional(threadInput(catalog)),
  first_comment: Type.Optional(firstCommentInput(catalog)),
});

/** The platforms whose rules have `flag`, for descriptions that stay true as platforms come. */
const platformsWith = (catalog: PlatformCatalog, flag: 'replies' | 'comments'): string =>
  catalog.names.filter((name) => catalog.rules(name)?.[flag]).join(', ') || 'none yet';

const firstCommentInput = (catalog: PlatformCatalog) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_CONTENT_LENGTH,
    description: `A comment posted on the published post (${platformsWith(catalog, 'comments')}), or its first reply where the platform has replies but no comments`,
  });

/** `thread`: follow-ups, each published as a reply to the one before. */
const threadInput = (catalog: PlatformCatalog) =>
  Type.Array(
    Type.Object(
      {
        content: Type.String({ maxLength: MAX_CONTENT_LENGTH }),
        media_urls: Type.Optional(
          Type.Array(Type.String({ maxLength: MAX_URL_LENGTH }), { maxItems: MAX_MEDIA_URLS }),
        ),
      },
      { additionalProperties: false },
    ),
    {
      maxItems: MAX_THREAD_PARTS,
      description: `Follow-ups published after the main post, each a reply to the one before (${platformsWith(catalog, 'replies')})`,
    },
  );

/** At least one target, by either list (an empty list is no target). */
export const AT_LEAST_ONE_TARGET = {
  anyOf: [
    { required: ['social_account_ids'], properties: { social_account_ids: { minItems: 1 } } },
    { required: ['platforms'], properties: { platforms: { minItems: 1 } } },
  ],
};

export const createPostBody = (catalog: PlatformCatalog) =>
  Type.Object(
    {
      ...postFields(catalog),
      // Accepted by the schema only so the domain can answer with the route to use instead.
      scheduled_at: Type.Optional(
        Type.Unknown({
          description: 'Not allowed here: scheduled posts go to POST /posts/schedule',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'At least one target: social_account_ids or platforms',
      ...AT_LEAST_ONE_TARGET,
    },
  );

export const schedulePostBody = (catalog: PlatformCatalog) =>
  Type.Object(
    {
      ...postFields(catalog),
      scheduled_at: Type.String({
        format: 'date-time',
        description: 'When to publish (ISO 8601 with timezone); must be in the future',
      }),
    },
    {
      additionalProperties: false,
      description: 'At least one target: social_account_ids or platforms',
      ...AT_LEAST_ONE_TARGET,
    },
  );

/** PATCH /posts/:id: the fields of create to change; each one given replaces the stored one. */
export const editPostBody = (catalog: PlatformCatalog) => {
  const { content, media_urls, platform_options, thread } = postFields(catalog);
  return Type.Object(
    {
      content,
      media_urls,
      platform_options,
      thread,
      first_comment: Type.Optional(
        Type.Union([firstCommentInput(catalog), Type.Null({ description: 'Removes it' })]),
      ),
      social_account_ids: Type.Optional(
        Type.Array(Type.String({ format: 'uuid' }), {
          maxItems: MAX_TARGETS,
          description:
            'The connections to publish to, in full: a connection left out loses its target, a new one gets a target',
        }),
      ),
      scheduled_at: Type.Optional(
        Type.String({
          format: 'date-time',
          description:
            'The new time (ISO 8601 with timezone), in the future; the post publishes then and only then',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'Only the fields to change; the others keep their stored values',
    },
  );
};

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
      description: 'Repeat the request with the same key and body: the first response is replayed',
    }),
  ),
});

/** One post of a batch: immediate, or scheduled when it has scheduled_at. */
export const batchItemBody = (catalog: PlatformCatalog) => {
  // The workspace is the batch's, not each post's.
  const { workspace_id: _workspace, ...fields } = postFields(catalog);
  return Type.Object(
    {
      ...fields,
      scheduled_at: Type.Optional(
        Type.String({
          format: 'date-time',
          description: 'When to publish (ISO 8601 with timezone); without it: now',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'At least one target: social_account_ids or platforms',
    },
  );
};

/** POST /posts/validate: a post as POST /posts or POST /posts/schedule takes it. */
export const validateBody = (catalog: PlatformCatalog) =>
  Type.Object(
    { ...batchItemBody(catalog).properties, workspace_id: WorkspaceField },
    {
      additionalProperties: false,
      description: 'The body of POST /posts, or of POST /posts/schedule (with scheduled_at)',
    },
  );
