/**
 * The HTTP app, without listening: routes, auth, rate limit, idempotency, error mapping,
 * OpenAPI. Tests build it over the domain's in-memory fakes and call `inject`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '@social-publisher/config';
import type { CoreDeps, QueueKind } from '@social-publisher/domain';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import pino from 'pino';
import { Settings } from 'typebox/system';
import { HttpError, handleError } from './errors.ts';
import { createIdempotency, type Idempotency } from './idempotency/idempotency.ts';
import { redactUrl } from './logger.ts';
import { createAuthenticator, credentialKeyOf } from './plugins/auth.ts';
import { installBodyTimeout } from './plugins/body-timeout.ts';
import { createClientErrorHandler } from './plugins/client-errors.ts';
import { installJsonBodyParser } from './plugins/json-body.ts';
import { createJwtVerifier, type JwtVerifier } from './plugins/jwt.ts';
import { installNotFoundHandler } from './plugins/not-found.ts';
import { installOpenApi, installOpenApiRoute } from './plugins/openapi.ts';
import { installRequestIdHeader, requestIdOf } from './plugins/request-id.ts';
import { installShutdownGuard } from './plugins/shutdown.ts';
import { createAttemptLimiter } from './rate-limit/attempts.ts';
import { createRateLimiter } from './rate-limit/limiter.ts';
import { createMemoryRateLimitStore } from './rate-limit/memory-store.ts';
import { createRedisRateLimitStore, type RedisEvalClient } from './rate-limit/redis-store.ts';
import type { RateLimitStore } from './rate-limit/store.ts';
import { type AdminQueuesOptions, adminQueuesRoutes } from './routes/admin-queues.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { connectRoutes, oauthCallbackRoutes } from './routes/connect.ts';
import { type HealthChecks, healthRoutes } from './routes/health.ts';
import { mediaRoutes } from './routes/media.ts';
import { mediaPublicRoutes } from './routes/media-public.ts';
import { type MetricsExposition, metricsRoutes } from './routes/metrics.ts';
import { oauthAuthorizeRoutes } from './routes/oauth-authorize.ts';
import { postEditRoutes } from './routes/post-edit.ts';
import { postSeriesRoutes } from './routes/post-series.ts';
import { postRoutes } from './routes/posts.ts';
import { postBatchRoutes } from './routes/posts-batch.ts';
import { postImportRoutes } from './routes/posts-import.ts';
import type { RouteOptions } from './routes/route-options.ts';
import { slotRoutes } from './routes/slots.ts';
import { socialAccountRoutes } from './routes/social-accounts.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { workspaceRoutes } from './routes/workspaces.ts';
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
}

/** The whole request, as a backstop behind the body bound: headers, then the longest body. */
function requestTimeoutOf(timeouts: AppConfig['httpTimeouts']): number {
  return (
    timeouts.headersMs +
    Math.max(timeouts.bodyMs, timeouts.importBodyMs, timeouts.mediaBodyMs) +
    1000
  );
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
  let logger: FastifyBaseLogger | undefined;
  const app = Fastify({
    loggerInstance: options.logger ?? pino({ level: 'silent' }),
    bodyLimit: config.bodyLimitBytes,
    // A slow sender cannot hold a connection: its headers, then its whole request, are bounded
    // by the server itself (a bare 408, then close); the body's own bound is the hook below.
    requestTimeout: requestTimeoutOf(config.httpTimeouts),
    http: {
      headersTimeout: config.httpTimeouts.headersMs,
      // Node checks those bounds this often (30 s by default): no later than a second past.
      connectionsCheckingInterval: Math.min(1000, config.httpTimeouts.headersMs),
    },
    genReqId: requestIdOf,
    // One log line per request (onResponse below), each line carrying request_id.
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: true,
    }),
    routerOptions: { maxParamLength: 200 },
    // request.ip: the connection's address, or the client's as the trusted proxies report it.
    trustProxy: config.trustProxy,
    // Draining requests are answered by installShutdownGuard, in the error envelope.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      handleError(error, request, reply);
    },
    clientErrorHandler: createClientErrorHandler(() => logger ?? pino({ level: 'silent' })),
  }).withTypeProvider<TypeBoxTypeProvider>();
  logger = app.log;

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.decorateRequest('actor', null);
  installJsonBodyParser(app);
  installBodyTimeout(app, config.httpTimeouts);
  installRequestIdHeader(app);
  installShutdownGuard(app);
  installNotFoundHandler(app);
  const { metrics } = options;
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: one series per route, whatever the ids.
    metrics?.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    request.log.info(
      {
        method: request.method,
        // The query's credentials (an OAuth callback's code and state, a key) never reach a log.
        url: redactUrl(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        // The client's address (through TRUST_PROXY's proxies): who sent what, and whose
        // failed credentials the per-address limit counted.
        ip: request.ip,
      },
      'request',
    );
  });
  await installOpenApi(app);

  const rateLimitStore = rateLimitStoreFor(options);
  const limiter = createRateLimiter(rateLimitStore, config.rateLimit, app.log);
  const attempts = createAttemptLimiter(
    rateLimitStore,
    config.attemptLimits,
    config.rateLimit.windowMs,
    app.log,
  );
  const verifyJwt =
    options.jwtVerifier === undefined ? createJwtVerifier(config) : options.jwtVerifier;
  const authenticator = createAuthenticator(deps, verifyJwt);
  const idempotency: Idempotency = createIdempotency(deps, { ttlMs: config.idempotencyTtlMs });

  await app.register(healthRoutes, {
    checks: options.checks,
    queueKind: options.queueKind,
    ...(options.healthTimeoutMs ? { timeoutMs: options.healthTimeoutMs } : {}),
  });

  if (options.adminQueues && options.adminQueues.queues.length > 0) {
    await app.register(adminQueuesRoutes, {
      ...options.adminQueues,
      attempts: attempts.of('admin_token'),
    });
  }

  if (metrics && options.metricsToken) {
    await app.register(metricsRoutes, {
      metrics,
      token: options.metricsToken,
      attempts: attempts.of('metrics_token'),
    });
  }

  // The OAuth callback is public (the single-use state is its credential): limited per address.
  // The callback and the consent link that binds a flow to its browser share one budget.
  const oauthFlows = attempts.of('oauth_callback');
  await app.register(oauthCallbackRoutes, { deps, limit: (ip) => oauthFlows.count(ip) });
  await app.register(oauthAuthorizeRoutes, { deps, limit: (ip) => oauthFlows.count(ip) });
  // Hosted media's public URLs: the platforms pull them without a credential.
  await app.register(mediaPublicRoutes, { deps });

  // Everything else needs a credential, and counts against its rate limit.
  const authFailures = attempts.of('auth_failure');
  await app.register(async (api) => {
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
    const routeOptions: RouteOptions = { deps, idempotency };
    await api.register(postRoutes, routeOptions);
    await api.register(postEditRoutes, routeOptions);
    await api.register(postBatchRoutes, routeOptions);
    await api.register(postImportRoutes, routeOptions);
    await api.register(postSeriesRoutes, routeOptions);
    await api.register(slotRoutes, routeOptions);
    await api.register(socialAccountRoutes, routeOptions);
    await api.register(connectRoutes, routeOptions);
    await api.register(apiKeyRoutes, routeOptions);
    await api.register(webhookRoutes, routeOptions);
    await api.register(workspaceRoutes, routeOptions);
    await api.register(mediaRoutes, routeOptions);
  });

  installOpenApiRoute(app);

  const sweepMs = options.idempotencySweepMs ?? 3_600_000;
  let sweeper: NodeJS.Timeout | undefined;
  if (sweepMs > 0) {
    app.addHook('onReady', async () => {
      sweeper = setInterval(() => {
        idempotency.sweep().catch((error: unknown) => {
          app.log.warn({ err: error }, 'deleting expired idempotency records failed');
        });
      }, sweepMs);
      sweeper.unref();
    });
  }
  app.addHook('onClose', async () => {
    if (sweeper) clearInterval(sweeper);
    await limiter.close();
  });
  return app;
}
