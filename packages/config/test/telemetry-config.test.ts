/** The OTEL_* tracing settings: when tracing is on, what each reads, and what stops the process. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadTelemetryConfig } from '../src/index.ts';

const problemsOf = (source: Record<string, string>): string => {
  try {
    loadConfig(source);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
};

describe('tracing settings', () => {
  it('off by default: no endpoint, the standard defaults', () => {
    expect(loadConfig({}).telemetry).toEqual({
      tracesEndpoint: null,
      protocol: 'http/protobuf',
      headers: {},
      serviceName: null,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      resourceAttributes: {},
    });
  });

  it('the base endpoint gets /v1/traces; the traces endpoint is used as given and wins', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' };
    expect(loadTelemetryConfig(base).tracesEndpoint).toBe('http://collector:4318/v1/traces');
    expect(
      loadTelemetryConfig({
        ...base,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://api.honeycomb.io/v1/traces',
      }).tracesEndpoint,
    ).toBe('https://api.honeycomb.io/v1/traces');
    expect(loadTelemetryConfig({ ...base, OTEL_SDK_DISABLED: 'true' }).tracesEndpoint).toBeNull();
  });

  it('headers and resource attributes: key=value pairs, percent-decoded', () => {
    const config = loadTelemetryConfig({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%3D%3D, x-dataset=sp',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.namespace=social',
      OTEL_SERVICE_NAME: 'publisher-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(config).toMatchObject({
      headers: { 'x-honeycomb-team': 'abc==', 'x-dataset': 'sp' },
      resourceAttributes: {
        'deployment.environment.name': 'prod',
        'service.namespace': 'social',
      },
      serviceName: 'publisher-eu',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      protocol: 'http/json',
    });
  });

  it('a bad value stops the process naming the variable; a header value is never quoted', () => {
    expect(problemsOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(
      /OTEL_EXPORTER_OTLP_PROTOCOL grpc is not supported/,
    );
    expect(problemsOf({ OTEL_TRACES_SAMPLER: 'sometimes' })).toMatch(/OTEL_TRACES_SAMPLER must be/);
    expect(problemsOf({ OTEL_TRACES_SAMPLER_ARG: '2' })).toMatch(
      /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/,
    );
    expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toMatch(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    const headers = problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%zzsecret' });
    expect(headers).toMatch(/OTEL_EXPORTER_OTLP_HEADERS entry 1 is not key=value/);
    expect(headers).not.toContain('secret');
    expect(() => loadTelemetryConfig({ OTEL_SDK_DISABLED: 'maybe' })).toThrow(ConfigError);
  });
});
