/**
 * The queues' web dashboard (bull-board), owned by the adapter that knows the queues: the API
 * mounts "the queue's dashboard, if it has one" and never sees a BullMQ type. bull-board's
 * server adapter is the seam: the API builds one for its HTTP framework (Fastify), the
 * dashboard fills it with the board's pages and API, and the API mounts it behind its
 * credential.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import type { Queue } from 'bullmq';

/** bull-board's seam to an HTTP framework (its `IServerAdapter`; `@bull-board/fastify` builds one). */
export type DashboardServer = Parameters<typeof createBullBoard>[0]['serverAdapter'];

export interface QueueDashboard {
  /**
   * Fills `server` with the board of the publish and webhook-delivery queues. Read-only unless
   * `writable`: retrying or removing a job by hand bypasses the database's view of the post.
   */
  attach(server: DashboardServer, options: { writable: boolean }): void;
}

export function bullBoardDashboard(queues: readonly Queue[]): QueueDashboard {
  return {
    attach(server, { writable }) {
      createBullBoard({
        queues: queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode: !writable })),
        serverAdapter: server,
        options: { uiConfig: { boardTitle: 'Social Publisher queues' } },
      });
    },
  };
}
