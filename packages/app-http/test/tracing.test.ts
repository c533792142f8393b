/**
 * The server span plugin on its own (tracing started in this process, spans to the testkit's
 * OTLP receiver): named by method and route template whatever the URL held, a client's
 * traceparent continued, probes untraced, unknown routes named by the method alone.
 */
import { startTelemetry, type Telemetry, traceLogFields } from '@social-publisher/telemetry';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from '../../testkit/src/index.ts';
import { tracing } from '../src/plugins/tracing.ts';

let receiver: OtlpReceiver;
let telemetry: Telemetry;
let app: FastifyInstance;

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
    'api',
  );
  app = Fastify();
  await app.register(tracing);
  app.get('/posts/:id', async () => traceLogFields());
  app.post('/posts', async (request) => ({ got: request.body, ...traceLogFields() }));
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/boom', async () => {
    throw new Error('boom');
  });
});
afterAll(async () => {
  await app.close();
  await telemetry.shutdown();
  await receiver.close();
});

it('names spans by route template, continues a traceparent, skips probes, keeps no URL', async () => {
  const traceId = 'a'.repeat(31).concat('1');
  const parent = 'b'.repeat(15).concat('2');
  const read = await app.inject({
    method: 'GET',
    url: '/posts/01234567-secret-id?token=SECRET-QUERY',
    headers: { traceparent: `00-${traceId}-${parent}-01` },
  });
  // A body arrives after the hooks: the handler still runs inside the span.
  const created = await app.inject({ method: 'POST', url: '/posts', payload: { content: 'x' } });
  await app.inject({ method: 'GET', url: '/health' });
  await app.inject({ method: 'GET', url: '/nowhere/SECRET-PATH' });
  await app.inject({ method: 'GET', url: '/boom' });
  await telemetry.shutdown();

  const spans = receiver.spans();
  expect(spans.map((span) => span.name).sort()).toEqual([
    'GET',
    'GET /boom',
    'GET /posts/:id',
    'POST /posts',
  ]);
  const get = spans.find((span) => span.name === 'GET /posts/:id');
  expect(get).toMatchObject({ kind: SPAN_KIND.server, traceId, parentSpanId: parent });
  expect(get?.attributes).toMatchObject({
    'http.route': '/posts/:id',
    'http.request.method': 'GET',
    'http.response.status_code': 200,
  });
  expect(read.json()).toEqual({ trace_id: traceId, span_id: get?.spanId });
  const post = spans.find((span) => span.name === 'POST /posts');
  expect(post?.parentSpanId).toBe('');
  expect(created.json()).toMatchObject({ trace_id: post?.traceId, span_id: post?.spanId });
  expect(spans.find((span) => span.name === 'GET /boom')?.attributes).toMatchObject({
    'http.response.status_code': 500,
  });
  const everything = receiver.exports.map((item) => item.body.toString('utf8')).join('\n');
  expect(everything).not.toMatch(/SECRET|01234567/);
});
