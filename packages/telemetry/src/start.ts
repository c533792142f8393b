/**
 * Starting tracing, the one place that does: the entry points call `startTelemetry` first,
 * before the modules it instruments (pg) load. Without an endpoint, or with
 * OTEL_SDK_DISABLED=true, nothing is loaded and nothing runs: the API's calls stay no-ops.
 */
import { loadTelemetryConfig, type TelemetryConfig } from '@social-publisher/config';

/** The kind of process: its default service.name. */
export type ProcessKind = 'api' | 'worker' | 'embedded';

/**
 * The default `service.name` of each process kind; OTEL_SERVICE_NAME (or a service.name in
 * OTEL_RESOURCE_ATTRIBUTES) overrides. The embedded mode (API and worker in one process) is
 * the API's: the process is `pnpm start` of the API's package, and its spans start at requests.
 */
export const SERVICE_NAMES: Record<ProcessKind, string> = {
  api: 'social-publisher-api',
  worker: 'social-publisher-worker',
  embedded: 'social-publisher-api',
};

export interface Telemetry {
  /** Whether spans are recorded and exported (an endpoint is set and the SDK started). */
  readonly enabled: boolean;
  /** Exports the spans still batched, then stops. Safe to call when tracing is off. */
  shutdown(): Promise<void>;
}

const OFF: Telemetry = { enabled: false, shutdown: async () => {} };

export function serviceNameOf(config: TelemetryConfig, kind: ProcessKind): string {
  return config.serviceName ?? config.resourceAttributes['service.name'] ?? SERVICE_NAMES[kind];
}

export async function startTelemetry(
  config: TelemetryConfig,
  kind: ProcessKind,
): Promise<Telemetry> {
  const endpoint = config.tracesEndpoint;
  if (endpoint === null) return OFF;
  const { startSdk } = await import('./sdk.ts');
  const sdk = startSdk({ ...config, name: serviceNameOf(config, kind) }, endpoint);
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown() {
      stopped ??= sdk.shutdown().catch(() => {});
      return stopped;
    },
  };
}

/**
 * For the entry points: the OTEL_* settings of `environment`, then startTelemetry. A bad value
 * leaves tracing off here: the full configuration read that follows reports it with every
 * other problem and stops the process. A tracing SDK that fails to start is said on stderr in
 * one line, and the service runs without it.
 */
export async function startTelemetryFromEnvironment(
  environment: Record<string, string | undefined>,
  kind: ProcessKind,
): Promise<Telemetry> {
  let config: TelemetryConfig;
  try {
    config = loadTelemetryConfig(environment);
  } catch {
    return OFF;
  }
  try {
    return await startTelemetry(config, kind);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`tracing is off: the OpenTelemetry SDK failed to start (${reason})\n`);
    return OFF;
  }
}
