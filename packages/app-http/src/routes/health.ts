/** GET /health: public; the shape of docs/api.md#health, checks.database included. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { QueueKind } from '@social-publisher/domain';
import { Type } from 'typebox';

export interface HealthChecks {
  database(): Promise<boolean>;
  queue(): Promise<boolean>;
}

export interface HealthOptions {
  checks: HealthChecks;
  queueKind: QueueKind;
  /** A check that has not answered by then counts as failed. */
  timeoutMs?: number;
}

const checkState = (description?: string) =>
  Type.Enum(['ok', 'error'], description ? { description } : {});

const healthBody = (description: string) =>
  Type.Object(
    {
      status: Type.Enum(['ok', 'degraded']),
      service: Type.Literal('social-publisher-api'),
      timestamp: Type.String({ format: 'date-time' }),
      checks: Type.Object({
        database: checkState(),
        redis: Type.Optional(checkState('With the Redis queue only')),
        queue: Type.Optional(checkState('With the in-process queue only')),
      }),
    },
    { description },
  );

async function probe(check: () => Promise<boolean>, timeoutMs: number): Promise<'ok' | 'error'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return (await Promise.race([check().catch(() => false), timeout])) ? 'ok' : 'error';
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, options) => {
  const timeoutMs = options.timeoutMs ?? 3_000;
  app.get(
    '/health',
    {
      schema: {
        tags: ['System'],
        operationId: 'getHealth',
        summary: 'Health',
        description:
          'Public. 200 when the database and the queue answer, else 503 degraded. checks.redis appears with the Redis queue, checks.queue with the in-process one.',
        response: {
          200: healthBody('Everything answers'),
          503: healthBody('A dependency is down (status degraded)'),
        },
      },
    },
    async (_request, reply) => {
      const [database, queue] = await Promise.all([
        probe(() => options.checks.database(), timeoutMs),
        probe(() => options.checks.queue(), timeoutMs),
      ]);
      const healthy = database === 'ok' && queue === 'ok';
      const checks =
        options.queueKind === 'redis' ? { database, redis: queue } : { database, queue };
      return reply.code(healthy ? 200 : 503).send({
        status: healthy ? 'ok' : 'degraded',
        service: 'social-publisher-api',
        timestamp: new Date().toISOString(),
        checks,
      });
    },
  );
};
