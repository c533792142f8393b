import { generateWebhookSecret } from '../crypto.ts';
import type { CoreDeps } from '../deps.ts';
import {
  conflict,
  type DomainError,
  limitExceeded,
  notFound,
  validationFailed,
} from '../errors.ts';
import type {
  AccountContext,
  Actor,
  DeliveryWithAttempts,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
} from '../model.ts';
import { err, ok, type Result } from '../result.ts';
import { isUuid } from '../rules/shape.ts';
import { validateWebhookInput, type WebhookInput } from '../rules/webhook-rules.ts';
import { secretBinding } from '../secret-cipher.ts';
import { canAccessAccount } from './access.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';

export const MAX_DELIVERY_LIST = 1000;

/** A webhook just created, with its signing secret in the clear: shown this once. */
export type CreatedWebhook = Webhook & { secret: string };

export async function createWebhook(
  deps: CoreDeps,
  ctx: AccountContext,
  input: WebhookInput,
): Promise<Result<CreatedWebhook, DomainError>> {
  const problems = validateWebhookInput(input, {
    allowHttp: deps.settings.webhookAllowHttp === true,
    allowPrivateNetworks: deps.settings.webhookAllowPrivateNetworks === true,
  });
  if (problems.length > 0) return err(validationFailed(problems));
  const filter = (input.social_account_ids ?? null) as string[] | null;
  const unknown = filter === null ? [] : await foreignConnections(deps, ctx.accountId, filter);
  if (unknown.length > 0) {
    return err(
      validationFailed([
        {
          field: 'social_account_ids',
          message: `not social accounts of this account: ${unknown.join(', ')}`,
        },
      ]),
    );
  }
  const id = deps.ids.newId();
  const secret = generateWebhookSecret();
  const webhook: Webhook = {
    id,
    accountId: ctx.accountId,
    createdBy: ctx.userId,
    url: String(input.url),
    events: [...(input.events as WebhookEvent[])],
    socialAccountIds: filter === null ? null : [...filter],
    active: true,
    disabledReason: null,
    failingSince: null,
    secretCiphertext: deps.cipher.encrypt(secret, secretBinding.webhookSecret(id)),
    createdAt: deps.clock.now(),
  };
  // Count and insert in one unit of work (the account locked): the limit holds under races.
  return deps.uow.run(async (repos) => {
    const max = deps.settings.maxWebhooksPerAccount;
    if ((await repos.webhooks.countByAccount(ctx.accountId)) >= max) {
      return err(
        limitExceeded(
          `an account may hold at most ${max} webhooks (WEBHOOKS_MAX_PER_ACCOUNT); delete one first`,
        ),
      );
    }
    await repos.webhooks.insert(webhook);
    return ok({ ...webhook, secret });
  });
}

/** The ids among `ids` that are not connections of the account (one read). */
async function foreignConnections(
  deps: CoreDeps,
  accountId: string,
  ids: readonly string[],
): Promise<string[]> {
  const found = await deps.repos.socialAccounts.findByIds(ids);
  const own = new Set(found.filter((c) => c.accountId === accountId).map((c) => c.id));
  return ids.filter((id) => !own.has(id));
}

export function listWebhooks(deps: CoreDeps, ctx: AccountContext): Promise<Webhook[]> {
  return deps.repos.webhooks.listByAccount(ctx.accountId);
}

/** A webhook the caller may reach, else not_found (never a hint that it exists elsewhere). */
async function reachableWebhook(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<Webhook, DomainError>> {
  const webhook = isUuid(id) ? await deps.repos.webhooks.findById(id) : null;
  const role = webhook ? await canAccessAccount(deps, actor, webhook.accountId) : null;
  return webhook && role ? ok(webhook) : err(notFound('webhook'));
}

/** One webhook the caller may reach (GET /webhooks/:id). */
export function getWebhook(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<Webhook, DomainError>> {
  return reachableWebhook(deps, actor, id);
}

export async function setWebhookActive(
  deps: CoreDeps,
  actor: Actor,
  id: string,
  active: boolean,
): Promise<Result<Webhook, DomainError>> {
  const found = await reachableWebhook(deps, actor, id);
  if (!found.ok) return found;
  // By hand, on or off: an earlier reason and failing streak no longer apply.
  if (!(await deps.repos.webhooks.setActive(id, active))) return err(notFound('webhook'));
  return ok({ ...found.value, active, disabledReason: null, failingSince: null });
}

export async function deleteWebhook(
  deps: CoreDeps,
  actor: Actor,
  id: string,
): Promise<Result<void, DomainError>> {
  const found = await reachableWebhook(deps, actor, id);
  if (!found.ok) return found;
  if (!(await deps.repos.webhooks.delete(id))) return err(notFound('webhook'));
  return ok(undefined);
}

export async function listDeliveries(
  deps: CoreDeps,
  actor: Actor,
  webhookId: string,
  limit = 100,
): Promise<Result<DeliveryWithAttempts[], DomainError>> {
  const found = await reachableWebhook(deps, actor, webhookId);
  if (!found.ok) return found;
  const bounded = Math.min(Math.max(Math.trunc(limit) || 1, 1), MAX_DELIVERY_LIST);
  return ok(await deps.repos.deliveries.listByWebhook(webhookId, bounded));
}

/** Sends a delivery again: same id and payload, a new round of attempts starting now. */
export async function redeliver(
  deps: CoreDeps,
  actor: Actor,
  webhookId: string,
  deliveryId: string,
): Promise<Result<WebhookDelivery, DomainError>> {
  const found = await reachableWebhook(deps, actor, webhookId);
  if (!found.ok) return found;
  const delivery = isUuid(deliveryId) ? await deps.repos.deliveries.findById(deliveryId) : null;
  if (!delivery || delivery.webhookId !== webhookId) return err(notFound('delivery'));
  if (!found.value.active) return err(conflict('the webhook is disabled; enable it first'));
  await deps.repos.deliveries.reset(delivery.id, deps.clock.now());
  await enqueueDeliveries(deps, [delivery.id]);
  return ok((await deps.repos.deliveries.findById(delivery.id)) ?? delivery);
}
