import type { Problem } from '../errors.ts';
import { WEBHOOK_EVENTS } from '../model.ts';
import { MAX_URL_LENGTH } from './media.ts';
import { isPrivateAddressLiteral } from './network.ts';
import { typeName } from './shape.ts';

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
}

/**
 * Development and test relaxations (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS), so a
 * local receiver on http://127.0.0.1 can be registered. Both are off in production.
 */
export interface WebhookUrlPolicy {
  allowHttp?: boolean;
  allowPrivateNetworks?: boolean;
}

// Each refusal names the server switch that lifts it: a developer with a receiver on their own
// machine otherwise has to go looking for it.
const NEEDS_HTTPS =
  'must use https (a local receiver over http:// needs WEBHOOK_ALLOW_HTTP=true on the server)';
const NEEDS_PUBLIC_ADDRESS =
  'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)';

export function validateWebhookUrl(value: unknown, policy: WebhookUrlPolicy = {}): Problem[] {
  const field = 'url';
  if (value === undefined || value === null) return [{ field, message: 'is required' }];
  if (typeof value !== 'string')
    return [{ field, message: `must be a string, got ${typeName(value)}` }];
  if (value.length > MAX_URL_LENGTH) {
    return [{ field, message: `must be at most ${MAX_URL_LENGTH} characters` }];
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [{ field, message: 'is not a valid URL' }];
  }
  const problems: Problem[] = [];
  const httpAllowed = policy.allowHttp === true && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) {
    problems.push({ field, message: NEEDS_HTTPS });
  }
  if (url.username !== '' || url.password !== '') {
    problems.push({ field, message: 'must not contain credentials' });
  }
  if (policy.allowPrivateNetworks !== true && isPrivateAddressLiteral(url.hostname)) {
    problems.push({ field, message: NEEDS_PUBLIC_ADDRESS });
  }
  return problems;
}

/** A non-empty subset of the events, each named once. */
export function validateWebhookEvents(value: unknown): Problem[] {
  const field = 'events';
  if (value === undefined || value === null) return [{ field, message: 'is required' }];
  if (!Array.isArray(value)) {
    return [{ field, message: `must be an array of event names, got ${typeName(value)}` }];
  }
  if (value.length === 0) {
    return [{ field, message: `must name at least one of ${WEBHOOK_EVENTS.join(', ')}` }];
  }
  const problems: Problem[] = [];
  const seen = new Set<unknown>();
  value.forEach((event, index) => {
    if (!(WEBHOOK_EVENTS as readonly unknown[]).includes(event)) {
      problems.push({
        field: `events[${index}]`,
        message: `must be one of ${WEBHOOK_EVENTS.join(', ')}`,
      });
    } else if (seen.has(event)) {
      problems.push({ field: `events[${index}]`, message: 'is listed more than once' });
    }
    seen.add(event);
  });
  return problems;
}

export function validateWebhookInput(
  input: WebhookInput,
  policy: WebhookUrlPolicy = {},
): Problem[] {
  return [...validateWebhookUrl(input.url, policy), ...validateWebhookEvents(input.events)];
}
