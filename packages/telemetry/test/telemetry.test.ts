/**
 * Tracing in one process against the testkit's OTLP receiver: the service's own spans (the one
 * helper, the queue's producer and consumer continuing one trace through a traceparent), the
 * outbound client spans (no query string, ids templated), the log fields; and, in child
 * processes, that without an endpoint (or with OTEL_SDK_DISABLED) the SDK is never loaded.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { diag } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from '../../testkit/src/index.ts';
import { reportSdkProblems } from '../src/diagnostics.ts';
import {
  activeTraceparent,
  inEnqueueSpan,
  inJobSpan,
  inSpan,
  pathTemplate,
  startTelemetry,
  type Telemetry,
  traceLogFields,
} from '../src/index.ts';

describe('pathTemplate', () => {
  it('keeps the words of a route, drops the query, and templates ids and tokens', () => {
    expect(pathTemplate('/2/tweets')).toBe('/2/tweets');
    expect(pathTemplate('/v21.0/1234567890/feed?access_token=EAAB123&message=hi')).toBe(
      '/v21.0/{id}/feed',
    );
    expect(pathTemplate('/api/v1/statuses/109876543210#frag')).toBe('/api/v1/statuses/{id}');
    expect(pathTemplate('/bot123456:AAH-secret_token/sendMessage')).toBe('/{id}/sendMessage');
    expect(pathTemplate('/rest/videos/urn%3Ali%3Avideo%3AC5F10AQ')).toBe('/rest/videos/{id}');
    expect(pathTemplate('/hooks/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX')).toBe(
      '/hooks/{id}/{id}/{id}',
    );
    expect(pathTemplate('/hooks/catch/AbCdEfGhIjKl')).toBe('/hooks/catch/{id}');
    expect(pathTemplate('/xrpc/com.atproto.repo.createRecord')).toBe(
      '/xrpc/com.atproto.repo.createRecord',
    );
    expect(pathTemplate('/rest/videos/Token')).toBe('/rest/videos/{id}');
    expect(pathTemplate('/v2/post/publish/video/init/')).toBe('/v2/post/publish/video/init/');
    expect(pathTemplate('/%ZZ/feed')).toBe('/{id}/feed');
    expect(pathTemplate('')).toBe('/');
  });
});

describe('without a started SDK', () => {
  it('the helpers are no-ops: no traceparent, no log fields, the function still runs', async () => {
    const result = await inSpan('nothing', { kind: 'internal' }, async () => ({
      traceparent: activeTraceparent(),
      fields: traceLogFields(),
    }));
    expect(result).toEqual({ traceparent: undefined, fields: {} });
  });
});

describe("the SDK's own problems", () => {
  it('are one JSON line at most once a minute, with the messages only', () => {
    const lines: string[] = [];
    reportSdkProblems((line) => lines.push(line));
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), {
      request: { headers: { authorization: 'Bearer not-for-logs' } },
    });
    diag.error('traces export failed', unreachable);
    diag.warn('again');
    diag.info('never shown');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}');
    expect(line).toMatchObject({
      level: 50,
      msg: 'tracing: traces export failed connect ECONNREFUSED 127.0.0.1:4318',
    });
    expect(lines[0]).not.toContain('not-for-logs');
  });
});

describe('with an OTLP endpoint (http/json)', () => {
  let receiver: OtlpReceiver;
  let telemetry: Telemetry;
  let platform: Server;
  let platformUrl = '';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    platform = createServer((_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    platformUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
    telemetry = await startTelemetry(
      {
        tracesEndpoint: `${receiver.baseUrl}/v1/traces`,
        protocol: 'http/json',
        headers: { authorization: 'Bearer collector-credential' },
        serviceName: null,
        sampler: 'parentbased_always_on',
        samplerRatio: 1,
        resourceAttributes: { 'deployment.environment.name': 'test' },
      },
      'worker',
    );
  });
  afterAll(async () => {
    await telemetry.shutdown();
    await receiver.close();
    await new Promise<void>((resolve) => platform.close(() => resolve()));
  });

  it('exports one trace: enqueue -> job (through the traceparent) -> a client call without its query', async () => {
    expect(telemetry.enabled).toBe(true);
    let logged: ReturnType<typeof traceLogFields> = {};
    let carried: { traceparent?: string } = {};
    await inSpan('request', { kind: 'server' }, async () => {
      await inEnqueueSpan('bullmq', 'publish', 'post-1', async (carrier) => {
        carried = carrier;
      });
    });
    expect(carried.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    // The job runs elsewhere, later: only the traceparent string links it to the enqueue.
    await inJobSpan(
      'bullmq',
      'publish',
      { id: 'post-1', attempt: 1, traceparent: carried.traceparent },
      async () => {
        logged = traceLogFields();
        const response = await fetch(`${platformUrl}/v21.0/1234567/feed?access_token=SECRET-Q`);
        await response.text();
      },
    );
    await expect(
      inJobSpan('bullmq', 'publish', { id: 'p', attempt: 2, traceparent: 'garbage' }, async () => {
        throw new TypeError('boom');
      }),
    ).rejects.toThrow('boom');
    await telemetry.shutdown();

    const spans = receiver.spans();
    const byName = (name: string) => spans.find((span) => span.name === name);
    const request = byName('request');
    const send = byName('send publish');
    const jobs = spans.filter((span) => span.name === 'process publish');
    const call = byName('GET /v21.0/{id}/feed');
    expect(request && send && call && jobs.length === 2).toBe(true);
    const job = jobs.find((span) => span.attributes['job.attempt'] === 1);
    expect(send?.parentSpanId).toBe(request?.spanId);
    expect(send?.kind).toBe(SPAN_KIND.producer);
    expect(job?.traceId).toBe(request?.traceId);
    expect(job?.parentSpanId).toBe(send?.spanId);
    expect(job?.kind).toBe(SPAN_KIND.consumer);
    expect(call?.parentSpanId).toBe(job?.spanId);
    expect(call?.kind).toBe(SPAN_KIND.client);
    expect(call?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'url.template': '/v21.0/{id}/feed',
      'http.response.status_code': 200,
    });
    expect(logged).toEqual({ trace_id: job?.traceId, span_id: job?.spanId });
    // A malformed traceparent starts a trace of its own; the error is typed, not described.
    const failed = jobs.find((span) => span.attributes['job.attempt'] === 2);
    expect(failed?.parentSpanId).toBe('');
    expect(failed?.attributes['error.type']).toBe('TypeError');
    expect(request?.resource).toMatchObject({
      'service.name': 'social-publisher-worker',
      'deployment.environment.name': 'test',
    });
    const everything = receiver.exports.map((item) => item.body.toString('utf8')).join('\n');
    expect(everything).not.toContain('SECRET-Q');
    expect(everything).not.toContain('1234567');
    expect(everything).not.toContain('collector-credential');
    expect(receiver.exports.every((item) => item.contentType.includes('application/json'))).toBe(
      true,
    );
  });
});

describe('the SDK is loaded only when tracing is on', () => {
  const START = new URL('../src/index.ts', import.meta.url).href;
  /** In a fresh process: starts telemetry from `env`; says whether any SDK module loaded. */
  const sdkLoaded = (env: Record<string, string>): boolean => {
    const script = `
      import { registerHooks } from 'node:module';
      const seen = [];
      registerHooks({ resolve(specifier, context, next) { seen.push(specifier); return next(specifier, context); } });
      const { startTelemetryFromEnvironment } = await import(${JSON.stringify(START)});
      const telemetry = await startTelemetryFromEnvironment(${JSON.stringify(env)}, 'api');
      await telemetry.shutdown();
      console.log(JSON.stringify({ enabled: telemetry.enabled, sdk: seen.some((s) => s.startsWith('@opentelemetry/sdk-trace')) }));
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const { enabled, sdk } = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(enabled).toBe(sdk);
    return sdk;
  };

  it('no endpoint: not loaded; OTEL_SDK_DISABLED=true: not loaded; an endpoint: loaded', () => {
    expect(sdkLoaded({})).toBe(false);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
    expect(sdkLoaded({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(sdkLoaded(endpoint)).toBe(true);
  });
});
