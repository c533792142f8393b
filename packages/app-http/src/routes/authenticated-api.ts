/**
 * Every route that needs a credential, in a scope of its own: a request is authenticated (a
 * refused credential counts against its address's budget of failures) and counted against its
 * credential's rate limit before any of these routes runs; the public routes never pay for it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError } from '../errors.ts';
import type { Authenticator } from '../plugins/auth.ts';
import { credentialKeyOf } from '../plugins/auth.ts';
import type { AttemptBudget } from '../rate-limit/attempts.ts';
import type { RateLimiter } from '../rate-limit/limiter.ts';
import { analyticsRoutes } from './analytics.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { commentRoutes } from './comments.ts';
import { connectRoutes } from './connect.ts';
import { inboxRoutes } from './inbox.ts';
import { mediaRoutes } from './media.ts';
import { mediaUploadRoutes } from './media-upload.ts';
import { postApprovalRoutes } from './post-approval.ts';
import { postCommentRoutes } from './post-comments.ts';
import { postEditRoutes } from './post-edit.ts';
import { postMetricsRoutes } from './post-metrics.ts';
import { postSeriesRoutes } from './post-series.ts';
import { postUnpublishRoutes } from './post-unpublish.ts';
import { postRoutes } from './posts.ts';
import { postBatchRoutes } from './posts-batch.ts';
import { postImportRoutes } from './posts-import.ts';
import type { RouteOptions } from './route-options.ts';
import { slotRoutes } from './slots.ts';
import { socialAccountRoutes } from './social-accounts.ts';
import { webhookDeliveryRoutes } from './webhook-deliveries.ts';
import { webhookRoutes } from './webhooks.ts';
import { workspaceSettingsRoutes } from './workspace-settings.ts';
import { workspaceRoutes } from './workspaces.ts';

export interface AuthenticatedApiOptions extends RouteOptions {
  authenticator: Authenticator;
  limiter: RateLimiter;
  authFailures: AttemptBudget;
}

export const authenticatedApi = fp(
  async (api: FastifyInstance, options: AuthenticatedApiOptions) => {
    const { authenticator, limiter, authFailures } = options;
    api.addHook('onRequest', async (request, reply) => {
      try {
        request.actor = await authenticator.authenticate(request);
      } catch (error) {
        // Failed attempts are limited per client address, so guessing keys is throttled too. A
        // valid credential is not refused for its address's failures: keys (238 random bits)
        // and signed tokens cannot be guessed, and a client sharing an address (NAT) with a
        // guesser keeps working; nor does a successful request pay a store round trip for it.
        // Only a refused credential counts: an outage (503) is no guess.
        if (error instanceof HttpError && error.statusCode === 401) {
          await authFailures.count(request.ip);
        }
        throw error;
      }
      await limiter.enforce(credentialKeyOf(request.actor), reply);
    });
    const routeOptions: RouteOptions = { deps: options.deps, idempotency: options.idempotency };
    for (const routes of [
      postRoutes,
      postEditRoutes,
      postApprovalRoutes,
      postBatchRoutes,
      postImportRoutes,
      postSeriesRoutes,
      postMetricsRoutes,
      postUnpublishRoutes,
      postCommentRoutes,
      inboxRoutes,
      commentRoutes,
      analyticsRoutes,
      slotRoutes,
      socialAccountRoutes,
      connectRoutes,
      apiKeyRoutes,
      webhookRoutes,
      webhookDeliveryRoutes,
      workspaceRoutes,
      workspaceSettingsRoutes,
      mediaUploadRoutes,
      mediaRoutes,
    ]) {
      await api.register(routes, routeOptions);
    }
  },
  {
    name: 'authenticated-api',
    // Its own scope: the hook above guards these routes only.
    encapsulate: true,
    dependencies: ['json-body', 'body-timeout', 'not-found', 'openapi'],
  },
);
