/**
 * Storage ports, one file per port. Every method is one statement's worth of work (or a small
 * fixed number); business decisions live in use cases. Conditional updates return whether
 * they applied, so concurrent workers can race safely.
 */
export type * from './storage/accounts.ts';
export type * from './storage/api-keys.ts';
export type * from './storage/comments.ts';
export type * from './storage/deliveries.ts';
export type * from './storage/idempotency.ts';
export type * from './storage/media.ts';
export type * from './storage/metrics.ts';
export type * from './storage/oauth-states.ts';
export type * from './storage/platform-apps.ts';
export type * from './storage/posts.ts';
export type * from './storage/repositories.ts';
export type * from './storage/series.ts';
export type * from './storage/slots.ts';
export type * from './storage/social-accounts.ts';
export type * from './storage/unpublish.ts';
export type * from './storage/webhooks.ts';
