import type { CoreDeps } from '@social-publisher/domain';
import type { Idempotency } from '../idempotency/idempotency.ts';

/** What every resource's routes are given by buildApp. */
export interface RouteOptions {
  deps: CoreDeps;
  idempotency: Idempotency;
}

/** OpenAPI security of the authenticated routes: either credential header. */
export const SECURED: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
