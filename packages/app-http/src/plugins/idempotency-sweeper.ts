/** Deletes expired idempotency records every `sweepMs` while the app runs (0: never). */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Idempotency } from '../idempotency/idempotency.ts';

export const idempotencySweeper = fp(
  async (app: FastifyInstance, options: { idempotency: Idempotency; sweepMs: number }) => {
    const { idempotency, sweepMs } = options;
    if (sweepMs <= 0) return;
    let sweeper: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      sweeper = setInterval(() => {
        idempotency.sweep().catch((error: unknown) => {
          app.log.warn({ err: error }, 'deleting expired idempotency records failed');
        });
      }, sweepMs);
      sweeper.unref();
    });
    app.addHook('onClose', async () => {
      if (sweeper) clearInterval(sweeper);
    });
  },
  { name: 'idempotency-sweeper' },
);
