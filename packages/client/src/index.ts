/**
 * A typed client of the Social Publisher API: openapi-fetch over the types generated from the
 * API's own OpenAPI document (src/schema.ts), so every path, body and response is checked.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.ts';

export type { components, operations, paths } from './schema.ts';

export type SocialPublisherClient = Client<paths>;

export interface SocialPublisherClientOptions {
  /** Where the API is reached, e.g. http://localhost:3000 (no trailing path). */
  baseUrl: string;
  /** An API key (sp_...) or a user JWT: sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Default: globalThis.fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

export function createSocialPublisherClient(
  options: SocialPublisherClientOptions,
): SocialPublisherClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
