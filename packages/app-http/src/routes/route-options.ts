import type { CoreDeps } from '@social-publisher/domain';
import type { Idempotency } from '../idempotency/idempotency.ts';

/** What every resource's routes are given by buildApp. */
export interface RouteOptions {
  deps: CoreDeps;
  idempotency: Idempotency;
}

/**
 * Cache-Control of every answer carrying a secret shown once (a raw API key, a webhook signing
 * secret): no cache, shared or the client's own, may keep a copy of it.
 */
export const SECRET_CACHE_CONTROL = 'no-store';

/** OpenAPI security of the authenticated routes: either credential header. */
export const SECURED: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
