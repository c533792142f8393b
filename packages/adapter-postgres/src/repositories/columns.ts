import type { Post, PostTarget, PostWithTargets } from '@social-publisher/domain';

/**
 * Column lists that alias snake_case columns to the domain's camelCase field names, so a
 * selected row already has the shape of the entity: no per-row mapping in JS.
 */

export const userColumns = [
  'users.id as id',
  'users.email as email',
  'users.external_subject as externalSubject',
  'users.created_at as createdAt',
] as const;

export const accountColumns = [
  'accounts.id as id',
  'accounts.kind as kind',
  'accounts.name as name',
  'accounts.approval_required as approvalRequired',
  'accounts.created_at as createdAt',
] as const;

export const membershipColumns = [
  'memberships.account_id as accountId',
  'memberships.user_id as userId',
  'memberships.role as role',
  'memberships.created_at as createdAt',
] as const;

export const apiKeyColumns = [
  'api_keys.id as id',
  'api_keys.account_id as accountId',
  'api_keys.created_by as createdBy',
  'api_keys.name as name',
  'api_keys.key_hash as keyHash',
  'api_keys.key_prefix as keyPrefix',
  'api_keys.created_at as createdAt',
  'api_keys.last_used_at as lastUsedAt',
] as const;

export const socialAccountColumns = [
  'social_accounts.id as id',
  'social_accounts.account_id as accountId',
  'social_accounts.platform as platform',
  'social_accounts.external_id as externalId',
  'social_accounts.display_name as displayName',
  'social_accounts.access_token_ciphertext as accessTokenCiphertext',
  'social_accounts.refresh_token_ciphertext as refreshTokenCiphertext',
  'social_accounts.token_expires_at as tokenExpiresAt',
  'social_accounts.scopes as scopes',
  'social_accounts.status as status',
  'social_accounts.sandbox as sandbox',
  'social_accounts.platform_data as platformData',
  'social_accounts.created_at as createdAt',
  'social_accounts.updated_at as updatedAt',
] as const;

export const postColumns = [
  'posts.id as id',
  'posts.account_id as accountId',
  'posts.created_by as createdBy',
  'posts.content as content',
  'posts.media_urls as mediaUrls',
  'posts.platform_options as platformOptions',
  'posts.thread as thread',
  'posts.first_comment as firstComment',
  'posts.scheduled_at as scheduledAt',
  'posts.status as status',
  'posts.created_at as createdAt',
  'posts.updated_at as updatedAt',
  'posts.series_id as seriesId',
  'posts.rejection_reason as rejectionReason',
] as const;

export const targetColumns = [
  'post_targets.id as id',
  'post_targets.post_id as postId',
  'post_targets.platform as platform',
  'post_targets.social_account_id as socialAccountId',
  'post_targets.sandbox as sandbox',
  'post_targets.status as status',
  'post_targets.attempts as attempts',
  'post_targets.error_code as errorCode',
  'post_targets.error_message as errorMessage',
  'post_targets.retryable as retryable',
  'post_targets.platform_post_id as platformPostId',
  'post_targets.platform_url as platformUrl',
  'post_targets.thread_post_ids as threadPostIds',
  'post_targets.first_comment_id as firstCommentId',
  'post_targets.resume_state as resumeState',
  'post_targets.lease_expires_at as leaseExpiresAt',
  'post_targets.published_at as publishedAt',
  'post_targets.unpublish as unpublish',
  'post_targets.updated_at as updatedAt',
] as const;

export const webhookColumns = [
  'webhooks.id as id',
  'webhooks.account_id as accountId',
  'webhooks.created_by as createdBy',
  'webhooks.url as url',
  'webhooks.events as events',
  'webhooks.social_account_ids as socialAccountIds',
  'webhooks.active as active',
  'webhooks.disabled_reason as disabledReason',
  'webhooks.failing_since as failingSince',
  'webhooks.secret as secretCiphertext',
  'webhooks.created_at as createdAt',
] as const;

export const deliveryColumns = [
  'webhook_deliveries.id as id',
  'webhook_deliveries.webhook_id as webhookId',
  'webhook_deliveries.account_id as accountId',
  'webhook_deliveries.post_id as postId',
  'webhook_deliveries.event as event',
  'webhook_deliveries.payload as payload',
  'webhook_deliveries.status as status',
  'webhook_deliveries.attempts as attempts',
  'webhook_deliveries.last_status_code as lastStatusCode',
  'webhook_deliveries.last_error as lastError',
  'webhook_deliveries.next_attempt_at as nextAttemptAt',
  'webhook_deliveries.delivered_at as deliveredAt',
  'webhook_deliveries.created_at as createdAt',
] as const;

export const attemptColumns = [
  'webhook_delivery_attempts.id as id',
  'webhook_delivery_attempts.delivery_id as deliveryId',
  'webhook_delivery_attempts.attempt_no as attemptNo',
  'webhook_delivery_attempts.status_code as statusCode',
  'webhook_delivery_attempts.error as error',
  'webhook_delivery_attempts.duration_ms as durationMs',
  'webhook_delivery_attempts.created_at as createdAt',
] as const;

export const idempotencyColumns = [
  'idempotency_keys.scope as scope',
  'idempotency_keys.key as key',
  'idempotency_keys.request_hash as requestHash',
  'idempotency_keys.status_code as statusCode',
  'idempotency_keys.response_body as responseBody',
  'idempotency_keys.created_at as createdAt',
  'idempotency_keys.expires_at as expiresAt',
] as const;

/** `posts.account_id as accountId` -> `accountId` (the field a selected column becomes). */
export const fieldOf = (column: string): string => column.slice(column.indexOf(' as ') + 4);

const POST_FIELDS = postColumns.map(fieldOf);
const TARGET_FIELDS = targetColumns.map(fieldOf);

/**
 * Splits the rows of posts LEFT JOIN post_targets (one post, target columns aliased
 * `t_<field>`) into the post and its targets, in row order. null when there are no rows.
 */
export function postFromJoinedRows(
  rows: ReadonlyArray<Record<string, unknown>>,
): PostWithTargets | null {
  const [first] = rows;
  if (first === undefined) return null;
  const post: Record<string, unknown> = {};
  for (const field of POST_FIELDS) post[field] = first[field];
  const targets: PostTarget[] = [];
  for (const row of rows) {
    if (row.t_id === null) continue; // a post without targets: one row of NULLs
    const target: Record<string, unknown> = {};
    for (const field of TARGET_FIELDS) target[field] = row[`t_${field}`];
    targets.push(target as unknown as PostTarget);
  }
  return { ...(post as unknown as Post), targets };
}

/** `posts.account_id as accountId` -> `p.account_id as "accountId"` (raw SQL needs the quotes). */
export function columnList(columns: readonly string[], alias: string, prefix = ''): string {
  return columns
    .map((column) => {
      const [source = '', field = ''] = column.split(' as ');
      return `${alias}.${source.slice(source.indexOf('.') + 1)} as "${prefix}${field}"`;
    })
    .join(', ');
}
