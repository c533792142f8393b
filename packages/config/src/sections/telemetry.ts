/**
 * Tracing (OpenTelemetry): the standard OTEL_* variables, read here like every other setting so
 * that a bad value stops the process with one line. Tracing is on only when an OTLP endpoint is
 * set and OTEL_SDK_DISABLED is not true; otherwise the SDK is never loaded.
 */
import type { Env } from '../env-readers.ts';

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export type TracesSampler = (typeof SAMPLERS)[number];

export interface TelemetryConfig {
  /**
   * Where spans are sent: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else
   * OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`; null when tracing is off (no endpoint, or
   * OTEL_SDK_DISABLED=true).
   */
  tracesEndpoint: string | null;
  /** OTEL_EXPORTER_OTLP_PROTOCOL (default http/protobuf). */
  protocol: (typeof PROTOCOLS)[number];
  /** OTEL_EXPORTER_OTLP_HEADERS: sent with every export (a collector's credential). */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; null: the process kind's own name. */
  serviceName: string | null;
  /** OTEL_TRACES_SAMPLER (default parentbased_always_on). */
  sampler: TracesSampler;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the traceidratio samplers (default 1). */
  samplerRatio: number;
  /** OTEL_RESOURCE_ATTRIBUTES: extra attributes of every span's resource. */
  resourceAttributes: Record<string, string>;
}

export function readTelemetry(e: Env): { telemetry: TelemetryConfig } {
  const disabled = e.bool('OTEL_SDK_DISABLED', false);
  const base = e.url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const traces = e.url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']);
  const endpoint = traces ?? (base === null ? null : `${base}/v1/traces`);
  return {
    telemetry: {
      tracesEndpoint: disabled ? null : endpoint,
      protocol: readProtocol(e),
      headers: keyValueList(e, 'OTEL_EXPORTER_OTLP_HEADERS'),
      serviceName: e.string('OTEL_SERVICE_NAME'),
      sampler: e.oneOf('OTEL_TRACES_SAMPLER', SAMPLERS, 'parentbased_always_on'),
      samplerRatio: readRatio(e),
      resourceAttributes: keyValueList(e, 'OTEL_RESOURCE_ATTRIBUTES'),
    },
  };
}

function readProtocol(e: Env): TelemetryConfig['protocol'] {
  if (e.string('OTEL_EXPORTER_OTLP_PROTOCOL') === 'grpc') {
    return e.report(
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'grpc is not supported; use http/protobuf (port 4318 of a collector) or http/json',
      'http/protobuf',
    );
  }
  return e.oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', PROTOCOLS, 'http/protobuf');
}

function readRatio(e: Env): number {
  const value = e.string('OTEL_TRACES_SAMPLER_ARG');
  if (value === null) return 1;
  const ratio = Number(value);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    return e.report('OTEL_TRACES_SAMPLER_ARG', `must be a number from 0 to 1, got "${value}"`, 1);
  }
  return ratio;
}

/**
 * `key1=value1,key2=value2` with percent-encoded values, as OpenTelemetry writes headers and
 * resource attributes. A bad entry is reported by its position only: header values are
 * credentials and never appear in a message.
 */
function keyValueList(e: Env, name: string): Record<string, string> {
  const value = e.string(name);
  const pairs: Record<string, string> = {};
  if (value === null) return pairs;
  const entries = value.split(',').filter((entry) => entry.trim() !== '');
  for (const [index, entry] of entries.entries()) {
    const equals = entry.indexOf('=');
    const key = equals > 0 ? entry.slice(0, equals).trim() : '';
    let decoded: string | null = null;
    try {
      decoded = decodeURIComponent(entry.slice(equals + 1).trim());
    } catch {
      decoded = null;
    }
    if (key === '' || equals < 0 || decoded === null) {
      return e.report(name, `entry ${index + 1} is not key=value (percent-encoded)`, {});
    }
    pairs[key] = decoded;
  }
  return pairs;
}
