/** Building blocks shared by every route schema: envelopes, error responses, params. */
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

export const ProblemSchema = Type.Object({
  field: Type.String({ description: 'Path of the offending field, e.g. `media_urls[0]`' }),
  message: Type.String(),
});

const errorBody = (description: string) =>
  Type.Object(
    {
      error: Type.Object({
        code: Type.String({ description: 'Stable snake_case error code' }),
        message: Type.String({ description: 'Human-readable sentence' }),
        details: Type.Optional(Type.Array(ProblemSchema)),
      }),
    },
    { description },
  );

/** Every error status the API answers with, and what it means. */
export const ERROR_DESCRIPTIONS = {
  400: 'validation_failed (each problem in details), invalid_json, bad_request, platform_not_configured, platform_auth_failed (POST /social-accounts: the platform refused the credentials) or no_slots (POST /posts/queue)',
  401: 'unauthorized: missing or invalid credential (WWW-Authenticate: Bearer)',
  403: 'forbidden: not a member of the workspace, or not allowed in it; own_post: approving or rejecting a post you created',
  404: 'not_found: no such resource within your reach',
  409: 'conflict, post_not_editable, post_not_pending (approving or rejecting a post that does not wait for approval), post_not_published (POST /posts/{id}/metrics/refresh or /unpublish), limit_exceeded, idempotency_key_reused or comment_gone (the platform deleted the comment meanwhile)',
  413: 'payload_too_large',
  422: 'unsupported (the platform does not offer that for this comment: the message says why) or platform_refused (the platform refused the comment action, in its own words)',
  415: 'unsupported_media_type: the body must be JSON',
  429: 'rate_limited (Retry-After says when to retry)',
  431: "headers_too_large: the request line and headers (a long URL counts) are over the server's limit (16 KiB), answered before any route runs",
  500: 'internal_error',
  503: 'auth_unavailable (the JWT key set cannot be reached), platform_unavailable (the platform could not be reached, or asked to wait: POST /social-accounts, comment actions) or shutting_down',
} as const;
export type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

const ERROR_SCHEMAS = Object.fromEntries(
  Object.entries(ERROR_DESCRIPTIONS).map(([status, text]) => [status, errorBody(text)]),
) as { [S in ErrorStatus]: ReturnType<typeof errorBody> };

export const ErrorSchema = errorBody('Error');

/** The error responses of a route, by status. */
export function errors<S extends ErrorStatus>(
  ...statuses: S[]
): { [K in S]: ReturnType<typeof errorBody> } {
  const out = {} as { [K in S]: ReturnType<typeof errorBody> };
  for (const status of statuses) out[status] = ERROR_SCHEMAS[status];
  return out;
}

/** Errors every authenticated route can answer with. */
export const AUTH_ERRORS = [401, 429, 500, 503] as const;
/**
 * Errors every route with ids in its path can answer with: 400 bad_request when the path's
 * escapes do not decode (`%ED%A0%80`), 404 when no such resource is within reach.
 */
export const PATH_ERRORS = [400, 404] as const;
/** Errors every route with a JSON body can answer with. */
export const BODY_ERRORS = [400, 413, 415] as const;

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
