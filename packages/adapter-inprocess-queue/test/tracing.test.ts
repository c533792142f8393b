/**
 * With tracing on, a job of the in-process queue continues the trace of its enqueue (through
 * the traceparent kept with the job, not through whatever async context the timer happened to
 * run in), each attempt in a consumer span of its own.
 */
import type { Logger } from '@social-publisher/domain';
import {
  inSpan,
  startTelemetry,
  type Telemetry,
  traceLogFields,
} from '@social-publisher/telemetry';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from '../../testkit/src/index.ts';
import { createInProcessQueue } from '../src/index.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
let receiver: OtlpReceiver;
let telemetry: Telemetry;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  telemetry = await startTelemetry(
    {
      tracesEndpoint: `${receiver.baseUrl}/v1/traces`,
      protocol: 'http/json',
      headers: {},
      serviceName: null,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      resourceAttributes: {},
    },
    'embedded',
  );
});
afterAll(async () => {
  await telemetry.shutdown();
  await receiver.close();
});

it('the job span continues the enqueue span; a retry is a second attempt in the same trace', async () => {
  const queue = createInProcessQueue({ logger: quiet, retryBaseDelayMs: 1, retryMaxDelayMs: 1 });
  const seen: Array<{ attempt: number; trace_id?: string }> = [];
  await queue.start({
    publish: async (_id, ctx) => {
      seen.push({ attempt: ctx.attempt, ...traceLogFields() });
      return ctx.attempt === 1 ? { kind: 'retry', delayMs: 1, reason: 'again' } : { kind: 'done' };
    },
    deliver: async () => ({ kind: 'done' }),
    unpublish: async () => ({ kind: 'done' }),
  });
  await inSpan('POST /posts', { kind: 'server' }, () => queue.enqueuePublish('post-1', null));
  await expect.poll(() => seen.length).toBe(2);
  await queue.close();
  await telemetry.shutdown();

  const spans = receiver.spans();
  const request = spans.find((span) => span.name === 'POST /posts');
  const send = spans.find((span) => span.name === 'send publish');
  const jobs = spans.filter((span) => span.name === 'process publish');
  expect(send?.kind).toBe(SPAN_KIND.producer);
  expect(send?.parentSpanId).toBe(request?.spanId);
  expect(send?.attributes['messaging.system']).toBe('in-process');
  expect(jobs.map((span) => span.attributes['job.attempt']).sort()).toEqual([1, 2]);
  for (const job of jobs) {
    expect(job.kind).toBe(SPAN_KIND.consumer);
    expect(job.traceId).toBe(request?.traceId);
    expect(job.parentSpanId).toBe(send?.spanId);
  }
  expect(seen.map((entry) => entry.trace_id)).toEqual([request?.traceId, request?.traceId]);
  expect(request?.resource['service.name']).toBe('social-publisher-api');
});
