/**
 * The HTTP app, without listening: routes, auth, rate limit, idempotency, error mapping,
 * OpenAPI. Tests build it over the domain's in-memory fakes and call `inject`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '@social-publisher/config';
import type { CoreDeps, QueueKind } from '@social-publisher/domain';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Settings } from 'typebox/system';
import { handleError } from './errors.ts';
import { createIdempotency } from './idempotency/idempotency.ts';
import { accessLog } from './plugins/access-log.ts';
import { createAuthenticator } from './plugins/auth.ts';
import { bodyTimeout } from './plugins/body-timeout.ts';
import { idempotencySweeper } from './plugins/idempotency-sweeper.ts';
import { jsonBodyParser } from './plugins/json-body.ts';
import { createJwtVerifier, type JwtVerifier } from './plugins/jwt.ts';
import { notFoundHandler } from './plugins/not-found.ts';
import { openApi, openApiDocumentRoute } from './plugins/openapi.ts';
import { requestIdHeader } from './plugins/request-id.ts';
import { shutdownGuard } from './plugins/shutdown.ts';
import { tracing } from './plugins/tracing.ts';
import { createAttemptLimiter } from './rate-limit/attempts.ts';
import { createRateLimiter } from './rate-limit/limiter.ts';
import { createMemoryRateLimitStore } from './rate-limit/memory-store.ts';
import { createRedisRateLimitStore, type RedisEvalClient } from './rate-limit/redis-store.ts';
import type { RateLimitStore } from './rate-limit/store.ts';
import { type AdminQueuesOptions, adminQueuesRoutes } from './routes/admin-queues.ts';
import { authenticatedApi } from './routes/authenticated-api.ts';
import { oauthCallbackRoutes } from './routes/connect.ts';
import { type HealthChecks, healthRoutes } from './routes/health.ts';
import { mediaPublicRoutes } from './routes/media-public.ts';
import { type MetricsExposition, metricsRoutes } from './routes/metrics.ts';
import { oauthAuthorizeRoutes } from './routes/oauth-authorize.ts';
import { serverOptions } from './server-options.ts';
import { validatorCompiler } from './validator-compiler.ts';

// Schema errors listed per invalid request (TypeBox stops at 8 by default; a bound keeps a huge
// invalid body from producing a huge reply).
Settings.Set({ maxErrors: 24 });

export type AppConfig = Pick<
  Config,
  | 'bodyLimitBytes'
  | 'httpTimeouts'
  | 'rateLimit'
  | 'attemptLimits'
  | 'trustProxy'
  | 'idempotencyTtlMs'
  | 'authJwtSecret'
  | 'authJwksUrl'
  | 'authJwtIssuer'
  | 'authJwtAudience'
  | 'queuePrefix'
>;

export interface AppOptions {
  deps: CoreDeps;
  checks: HealthChecks;
  queueKind: QueueKind;
  config: AppConfig;
  /** pino (or compatible); default: silent. */
  logger?: FastifyBaseLogger;
  /** Overrides the rate limit store (default: Redis through rateLimitRedis, else memory). */
  rateLimitStore?: RateLimitStore;
  /** The runtime's rate-limit Redis connection (limits shared by every API process). */
  rateLimitRedis?: RedisEvalClient | null;
  /** Overrides the JWT verifier built from config (tests). */
  jwtVerifier?: JwtVerifier | null;
  /** How long GET /health waits for a check (default 3 s). */
  healthTimeoutMs?: number;
  /** How often expired idempotency records are deleted; 0 = never (default 1 h). */
  idempotencySweepMs?: number;
  /** The process's metrics: HTTP latency is recorded; GET /metrics is served with `metricsToken`. */
  metrics?: MetricsExposition;
  /** METRICS_TOKEN (null: no /metrics on this port). */
  metricsToken?: string | null;
  /** The BullMQ dashboard at /admin/queues (production mode with ADMIN_TOKEN set). */
  adminQueues?: AdminQueuesOptions | null;
  /** Tracing is on (an OTLP endpoint is set): each request gets a server span. */
  tracing?: boolean;
}

function rateLimitStoreFor(options: AppOptions): RateLimitStore {
  if (options.rateLimitStore) return options.rateLimitStore;
  if (!options.rateLimitRedis) return createMemoryRateLimitStore();
  return createRedisRateLimitStore(
    options.rateLimitRedis,
    `${options.config.queuePrefix}:ratelimit:`,
  );
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { deps, config } = options;
  const app = Fastify(
    serverOptions(config, options.logger),
  ).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.decorateRequest('actor', null);

  const rateLimitStore = rateLimitStoreFor(options);
  const limiter = createRateLimiter(rateLimitStore, config.rateLimit, app.log);
  app.addHook('onClose', () => limiter.close());
  const attempts = createAttemptLimiter(
    rateLimitStore,
    config.attemptLimits,
    config.rateLimit.windowMs,
    app.log,
  );
  const verifyJwt =
    options.jwtVerifier === undefined ? createJwtVerifier(config) : options.jwtVerifier;
  const idempotency = createIdempotency(deps, { ttlMs: config.idempotencyTtlMs });
  // The callback and the consent link that binds a flow to its browser share one budget.
  const oauthFlows = attempts.of('oauth_callback');

  // Cross-cutting concerns first (not-found records every route registered after it); the
  // server span before all of them, so that everything a request does happens inside it.
  if (options.tracing) await app.register(tracing);
  await app.register(jsonBodyParser);
  await app.register(bodyTimeout, config.httpTimeouts);
  await app.register(requestIdHeader);
  await app.register(shutdownGuard);
  await app.register(notFoundHandler);
  await app.register(accessLog, { metrics: options.metrics });
  await app.register(openApi);
  await app.register(idempotencySweeper, {
    idempotency,
    sweepMs: options.idempotencySweepMs ?? 3_600_000,
  });

  // Public routes: their own credentials or none.
  await app.register(healthRoutes, {
    checks: options.checks,
    queueKind: options.queueKind,
    ...(options.healthTimeoutMs ? { timeoutMs: options.healthTimeoutMs } : {}),
  });
  const dashboard = options.adminQueues?.dashboard;
  if (options.adminQueues && dashboard) {
    await app.register(adminQueuesRoutes, {
      ...options.adminQueues,
      dashboard,
      attempts: attempts.of('admin_token'),
    });
  }
  if (options.metrics && options.metricsToken) {
    await app.register(metricsRoutes, {
      metrics: options.metrics,
      token: options.metricsToken,
      attempts: attempts.of('metrics_token'),
    });
  }
  // The OAuth callback is public (the single-use state is its credential): limited per address.
  await app.register(oauthCallbackRoutes, { deps, limit: (ip) => oauthFlows.count(ip) });
  await app.register(oauthAuthorizeRoutes, { deps, limit: (ip) => oauthFlows.count(ip) });
  // Hosted media's public URLs: the platforms pull them without a credential.
  await app.register(mediaPublicRoutes, { deps });

  await app.register(authenticatedApi, {
    deps,
    idempotency,
    authenticator: createAuthenticator(deps, verifyJwt),
    limiter,
    authFailures: attempts.of('auth_failure'),
  });
  // Last, so that the document holds every route.
  await app.register(openApiDocumentRoute);
  return app;
}
