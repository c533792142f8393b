/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event of the catalogue, each a POST whose
 * body is the event's payload. The payloads are components (`PostPublishedPayload`, ...), so
 * the generated client names them and exports them by event (WebhookPayloads).
 */
import { WEBHOOK_PAYLOADS } from '../schemas/webhook-payloads.ts';

interface Document {
  components?: { schemas?: Record<string, unknown> };
  webhooks?: Record<string, unknown>;
}

const ACKNOWLEDGE =
  'Any 2xx within 10 seconds acknowledges the delivery; anything else is retried (docs/api.md#webhook-delivery). 410 Gone disables the webhook.';

/** The event's POST, as the receiver's endpoint sees it. */
function webhookOperation({ event, name, when }: (typeof WEBHOOK_PAYLOADS)[number]) {
  const operationId = `${name.charAt(0).toLowerCase()}${name.slice(1).replace(/Payload$/, '')}Event`;
  return {
    post: {
      tags: ['Webhooks'],
      operationId,
      summary: event,
      description: `${when} Headers: X-Social-Publisher-Event (${event}), the signatures and webhook-id (the delivery id).`,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
      },
      responses: { '200': { description: ACKNOWLEDGE } },
    },
  };
}

/** The document with every event's payload as a component and its entry under `webhooks`. */
export function withWebhooks<T extends object>(document: T): T {
  const target = document as Document;
  target.components ??= {};
  target.components.schemas ??= {};
  target.webhooks = {};
  for (const payload of WEBHOOK_PAYLOADS) {
    // Plain JSON: the TypeBox schema carries symbols the document must not.
    target.components.schemas[payload.name] = JSON.parse(JSON.stringify(payload.schema));
    target.webhooks[payload.event] = webhookOperation(payload);
  }
  return document;
}
