/**
 * The OpenTelemetry SDK, started once per process by start.ts and only when an endpoint is
 * configured: loading this file is what loads the SDK (start.ts imports it dynamically).
 *
 * What it sets up: the W3C trace-context propagator (traceparent/tracestate only, no baggage),
 * the AsyncLocalStorage context manager, a tracer provider with the configured sampler and the
 * process's resource, a batch processor to the OTLP/HTTP exporter (protobuf or JSON), the pg
 * instrumentation (statement text with its $n placeholders, never the values; only beneath an
 * existing span, so background polling makes no traces of its own) and undici's client spans.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TelemetryConfig } from '@social-publisher/config';
import { reportSdkProblems } from './diagnostics.ts';
import { TRACER_NAME } from './spans.ts';
import { traceUndiciRequests } from './undici-spans.ts';

/** What the SDK is started with: the configuration and the resolved service name. */
export type TracingSettings = TelemetryConfig & { name: string };

export interface StartedSdk {
  shutdown(): Promise<void>;
}

function samplerOf(settings: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

export function startSdk(settings: TracingSettings, endpoint: string): StartedSdk {
  reportSdkProblems();
  const exporterOptions = { url: endpoint, headers: { ...settings.headers } };
  const exporter =
    settings.protocol === 'http/json'
      ? new JsonExporter(exporterOptions)
      : new ProtobufExporter(exporterOptions);
  const resource = defaultResource().merge(
    resourceFromAttributes({ ...settings.resourceAttributes, [ATTR_SERVICE_NAME]: settings.name }),
  );
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);

  const pg = new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true });
  pg.setTracerProvider(provider);
  pg.enable();
  const stopUndici = traceUndiciRequests(provider.getTracer(TRACER_NAME));

  return {
    async shutdown() {
      stopUndici();
      pg.disable();
      // Flushes the spans still batched (the last job's) before the process exits.
      await provider.shutdown();
    },
  };
}
