/**
 * The error responses of the routes: the error envelope (`{ error: { code, message, details } }`),
 * what each status means, and the statuses every authenticated route, every route with ids in
 * its path and every route with a JSON body can answer with.
 */
import { Type } from 'typebox';

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
