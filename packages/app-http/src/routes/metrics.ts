/**
 * GET /metrics (Prometheus text) on the API's port, only when METRICS_TOKEN is set and only with
 * `Authorization: Bearer <METRICS_TOKEN>`: the counters say how busy each account's platforms
 * are, which is nobody else's business. METRICS_PORT serves the same without a credential on a
 * port of its own (packages/runtime).
 */
import type { FastifyPluginAsync } from 'fastify';
import { unauthorizedError } from '../errors.ts';
import { sameSecret } from '../plugins/same-secret.ts';
import type { AttemptBudget } from '../rate-limit/attempts.ts';

export interface MetricsExposition {
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsRouteOptions {
  metrics: MetricsExposition;
  token: string;
  /** Wrong tokens, per client address (a right one after the budget is spent is refused too). */
  attempts: AttemptBudget;
}

export const metricsRoutes: FastifyPluginAsync<MetricsRouteOptions> = async (app, options) => {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    await options.attempts.refuseIfSpent(request.ip);
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ') || !sameSecret(header.slice(7), options.token)) {
      await options.attempts.count(request.ip);
      throw unauthorizedError('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    const text = await options.metrics.render();
    return reply.header('content-type', options.metrics.contentType).send(text);
  });
};
