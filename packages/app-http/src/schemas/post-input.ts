/**
 * The JSON body of a post, shared by POST /posts, /posts/schedule, /posts/validate and
 * /posts/bulk: each platform's `platform_options` schema comes from its descriptor.
 */
import type { PlatformCatalog } from '@social-publisher/domain';
import { SANDBOX_OUTCOMES } from '@social-publisher/domain';
import { Type } from 'typebox';
import { WorkspaceField } from './common.ts';

export const MAX_TARGETS = 50;

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

export const postFields = (catalog: PlatformCatalog) => ({
  content: Type.Optional(
    Type.String({ maxLength: 5000, description: 'At most 5000 characters; default ""' }),
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
    Type.Array(Type.String({ maxLength: 2048 }), {
      maxItems: 20,
      description: 'Public http(s) URLs of the media',
    }),
  ),
  workspace_id: WorkspaceField,
  platform_options: Type.Optional(platformOptionsInput(catalog)),
  thread: Type.Optional(ThreadInput(catalog)),
  first_comment: Type.Optional(
    Type.String({
      maxLength: 5000,
      description: `A comment posted on the published post (${platformsWith(catalog, 'comments')})`,
    }),
  ),
});

/** The platforms whose rules allow replies or comments, as the descriptions list them. */
const platformsWith = (catalog: PlatformCatalog, what: 'replies' | 'comments') =>
  catalog.names.filter((name) => catalog.rules(name)?.[what]).join(', ');

/** `thread`: follow-ups, each published as a reply to the one before. */
const ThreadInput = (catalog: PlatformCatalog) =>
  Type.Array(
    Type.Object(
      {
        content: Type.String({ maxLength: 5000 }),
        media_urls: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 20 })),
      },
      { additionalProperties: false },
    ),
    {
      maxItems: 25,
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
  const { content, media_urls, platform_options } = postFields(catalog);
  return Type.Object(
    {
      content,
      media_urls,
      platform_options,
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
      maxLength: 255,
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
