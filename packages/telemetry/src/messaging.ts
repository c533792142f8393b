/**
 * The queue's spans, the same for every queue adapter (BullMQ, the in-process queue): the
 * enqueue is a producer span `send <queue>`, the job a consumer span `process <queue>` that
 * continues the trace of the enqueue through the job's `traceparent` (ids and a flag only;
 * nothing else of the context travels in a job).
 */
import { activeTraceparent, inSpan } from './spans.ts';

/** What a job's data carries of the trace: `{ traceparent }`, or nothing without a span. */
export type TraceCarrier = { traceparent?: string };

const attributesOf = (system: string, queue: string, id: string, operation: string) => ({
  'messaging.system': system,
  'messaging.destination.name': queue,
  'messaging.operation.type': operation,
  'messaging.message.id': id,
});

/** Runs the enqueue of job `id` in a producer span; `fn` gets what to add to the job's data. */
export function inEnqueueSpan<T>(
  system: string,
  queue: string,
  id: string,
  fn: (carrier: TraceCarrier) => Promise<T>,
): Promise<T> {
  return inSpan(
    `send ${queue}`,
    { kind: 'producer', attributes: attributesOf(system, queue, id, 'send') },
    () => {
      const traceparent = activeTraceparent();
      return fn(traceparent === undefined ? {} : { traceparent });
    },
  );
}

/** Runs one attempt of job `id` in a consumer span continuing `traceparent` (if any). */
export function inJobSpan<T>(
  system: string,
  queue: string,
  job: { id: string; attempt: number; traceparent: unknown },
  fn: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `process ${queue}`,
    {
      kind: 'consumer',
      attributes: { ...attributesOf(system, queue, job.id, 'process'), 'job.attempt': job.attempt },
      traceparent: typeof job.traceparent === 'string' ? job.traceparent : undefined,
    },
    fn,
  );
}
