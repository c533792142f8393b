import type { Problem } from '../errors.ts';
import { WEBHOOK_EVENTS, type Webhook } from '../model.ts';
import { MAX_URL_LENGTH } from './media.ts';
import { isPrivateAddressLiteral } from './network.ts';
import { isUuid, typeName } from './shape.ts';

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  /** Absent or null: every event of the account; else 1-100 connection ids. */
  social_account_ids?: unknown;
}

/** Connections one webhook may be filtered to. */
export const MAX_WEBHOOK_CONNECTIONS = 100;

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

/**
 * The shape of a connection filter: absent or null (no filter), else 1-100 distinct uuids.
 * Whether each is a connection of the account is the use case's question.
 */
export function validateWebhookConnections(value: unknown): Problem[] {
  const field = 'social_account_ids';
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    return [{ field, message: `must be an array of social account ids, got ${typeName(value)}` }];
  }
  if (value.length === 0 || value.length > MAX_WEBHOOK_CONNECTIONS) {
    return [
      {
        field,
        message: `must name 1 to ${MAX_WEBHOOK_CONNECTIONS} social accounts (omit it for all of them)`,
      },
    ];
  }
  const problems: Problem[] = [];
  const seen = new Set<unknown>();
  value.forEach((id, index) => {
    if (!isUuid(id)) {
      problems.push({ field: `${field}[${index}]`, message: 'must be a social account id (uuid)' });
    } else if (seen.has(id)) {
      problems.push({ field: `${field}[${index}]`, message: 'is listed more than once' });
    }
    seen.add(id);
  });
  return problems;
}

export function validateWebhookInput(
  input: WebhookInput,
  policy: WebhookUrlPolicy = {},
): Problem[] {
  return [
    ...validateWebhookUrl(input.url, policy),
    ...validateWebhookEvents(input.events),
    ...validateWebhookConnections(input.social_account_ids),
  ];
}

/** Whether a webhook filtered by connection (or not at all) receives an event about these. */
export function reachesConnections(
  webhook: Pick<Webhook, 'socialAccountIds'>,
  socialAccountIds: readonly string[],
): boolean {
  return (
    webhook.socialAccountIds === null ||
    webhook.socialAccountIds.some((id) => socialAccountIds.includes(id))
  );
}
