/**
 * `pnpm start:worker`: the worker's entry point. Tracing starts first, before the modules it
 * instruments load (the database driver), then serve.ts does the rest. Without
 * OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry's SDK is loaded.
 */
import { startTelemetryFromEnvironment } from '@social-publisher/telemetry';

const telemetry = await startTelemetryFromEnvironment(process.env, 'worker');
const { serve } = await import('./serve.ts');
serve(telemetry);
