/**
 * A typed client of the Social Publisher API: openapi-fetch over the types generated from the
 * API's own OpenAPI document (src/schema.ts), so every path, body and response is checked.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths, webhooks } from './schema.ts';

export type { components, operations, paths, webhooks } from './schema.ts';

/** An event of the webhook catalogue, e.g. `post.published`. */
export type WebhookEvent = keyof webhooks;

/**
 * The body of each event's delivery, by event: `WebhookPayloads['post.published']`. Parse the
 * raw body after checking its signature (docs/api.md#webhook-signatures).
 */
export type WebhookPayloads = {
  [E in WebhookEvent]: NonNullable<
    webhooks[E]['post']['requestBody']
  >['content']['application/json'];
};

/** Any delivery's body; narrow it by `event`. */
export type WebhookPayload = WebhookPayloads[WebhookEvent];

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
