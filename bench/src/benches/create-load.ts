/**
 * Child process of the create benchmark: the load generator (autocannon), kept out of the
 * measured process. Runs one autocannon pass per `run` message and reports its figures.
 */
import autocannon from 'autocannon';
import { onParentMessage, toParent } from '../lib/child.ts';

onParentMessage(async (message) => {
  if (message.type !== 'run') return;
  const result = await autocannon({
    url: String(message.url),
    method: 'POST',
    headers: message.headers as Record<string, string>,
    body: String(message.body),
    connections: Number(message.connections),
    duration: Number(message.durationSeconds),
    // Open loop: this many requests per second in all, whatever the answers' pace.
    ...(message.rate ? { overallRate: Number(message.rate) } : {}),
    pipelining: 1,
    timeout: 30,
  });
  toParent({
    type: 'result',
    total: result.requests.total,
    durationSeconds: result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statusCodes: Object.keys(result.statusCodeStats ?? {}).join(','),
  });
});

toParent({ type: 'ready' });
