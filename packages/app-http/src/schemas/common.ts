/** Building blocks shared by every route schema: envelopes, params, headers (errors: error-responses.ts). */
import { MAX_PAGE_SIZE } from '@social-publisher/domain';
import { type Static, type TSchema, Type } from 'typebox';

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * `T | null`. A scalar becomes `type: [T, 'null']` rather than a union: the response serializer
 * (fast-json-stringify) picks a union's branch by running a validator on every value (for a
 * nullable date-time, ajv-formats' parser: 12-14 % of a 10,000-post GET /posts), and a type
 * list by `typeof`. Anything else stays a union.
 */
export const Nullable = <T extends TSchema>(schema: T) => {
  const { type } = schema as { type?: unknown };
  return Type.Unsafe<Static<T> | null>(
    typeof type === 'string' && SCALAR_TYPES.has(type)
      ? { ...schema, type: [type, 'null'] }
      : Type.Union([schema, Type.Null()]),
  );
};

export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A page's cursor in a query string: the `next_cursor` of the page before, never empty. */
export const PageCursor = (description = 'next_cursor of the previous page') =>
  Type.String({ minLength: 1, description });

export const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });

/** A response schema with the headers the document shows for it (by name). */
export const withHeaders = <T extends object>(response: T, headers: Record<string, TSchema>) =>
  Object.assign(response, { headers });

/** The header of an answer that carries a secret shown once (a raw API key, a webhook secret). */
export const NO_STORE_HEADERS = {
  'Cache-Control': Type.Literal('no-store', {
    description: 'The answer carries a secret shown once: no cache may keep it',
  }),
};

/** `{ data: ... }`, the envelope of every success body. */
export const Data = <T extends TSchema>(schema: T, description: string) =>
  Type.Object({ data: schema }, { description });

export const IdParams = (description: string) => Type.Object({ id: Type.String({ description }) });

export const WorkspaceQuery = Type.Object({
  workspace_id: Type.Optional(
    Type.String({ description: 'Team account to act in; default: your personal account' }),
  ),
});

export const WorkspaceField = Type.Optional(
  Type.String({ description: 'Team account to act in; default: your personal account' }),
);

/** No content (204). */
export const NoContent = Type.Null({ description: 'No content' });

/** The `limit` of a paged list: 1 to MAX_PAGE_SIZE, `byDefault` when it is not given. */
export const PageLimit = (byDefault: number) =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: byDefault,
      description: `Page size (1-${MAX_PAGE_SIZE}, default ${byDefault})`,
    }),
  );
