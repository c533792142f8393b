/**
 * /admin/queues: the queue's own dashboard (BullMQ's, in bull-board: production mode only),
 * behind ADMIN_TOKEN, sent as `Authorization: Bearer <token>` or as the password of HTTP Basic
 * auth (so a browser asks for it). Read-only unless ADMIN_QUEUES_WRITE: retrying or removing
 * a publish job by hand bypasses the database's view of the post, which the reconciler then has
 * to repair. The queue adapter owns the board; this route gives it a Fastify server adapter and
 * mounts that behind the credential, knowing no queue library.
 */
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { HttpError, handleError } from '../errors.ts';
import { sameSecret } from '../plugins/same-secret.ts';
import type { AttemptBudget } from '../rate-limit/attempts.ts';

export const ADMIN_QUEUES_PATH = '/admin/queues';

/** What this route needs of a queue's dashboard (adapter-bullmq's `QueueDashboard` is one). */
export interface MountableDashboard {
  attach(server: FastifyAdapter, options: { writable: boolean }): void;
}

export interface AdminQueuesOptions {
  /** The queue's dashboard; none (the in-process queue) mounts no route. */
  dashboard: MountableDashboard | null;
  token: string;
  writable: boolean;
}

function presentedSecret(request: FastifyRequest): string | null {
  const header = request.headers.authorization ?? '';
  if (header.startsWith('Bearer ')) return header.slice('Bearer '.length);
  if (header.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : null;
  }
  return null;
}

/** Who checks the token (wrong ones are limited per client address), and the board it guards. */
export interface AdminQueuesGuard {
  attempts: AttemptBudget;
  dashboard: MountableDashboard;
}

async function refusalOf(
  request: FastifyRequest,
  options: AdminQueuesOptions & AdminQueuesGuard,
): Promise<unknown> {
  try {
    await options.attempts.refuseIfSpent(request.ip);
    const secret = presentedSecret(request);
    if (secret !== null && sameSecret(secret, options.token)) return null;
    await options.attempts.count(request.ip);
  } catch (limited) {
    return limited;
  }
  return new HttpError(401, 'unauthorized', 'the queue dashboard needs ADMIN_TOKEN', {
    headers: { 'WWW-Authenticate': 'Basic realm="social-publisher queues", charset="UTF-8"' },
  });
}

export const adminQueuesRoutes: FastifyPluginAsync<AdminQueuesOptions & AdminQueuesGuard> = async (
  app,
  options,
) => {
  app.addHook('onRequest', async (request, reply) => {
    const refusal = await refusalOf(request, options);
    if (refusal !== null) {
      // Answered here rather than thrown: bull-board installs its own error handler in its scope.
      handleError(refusal, request, reply);
      return reply;
    }
  });
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  options.dashboard.attach(serverAdapter, { writable: options.writable });
  await app.register(serverAdapter.registerPlugin(), { prefix: ADMIN_QUEUES_PATH });
};
