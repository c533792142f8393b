/**
 * `pnpm start:worker`: the worker's entry point. The serving process's V8 settings first
 * (heap-tuning.ts), then tracing, before the modules it instruments load (the database driver),
 * then serve.ts does the rest. Without OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry's
 * SDK is loaded.
 */
import { tuneHeapForServing } from '@social-publisher/runtime/heap-tuning';
import { startTelemetryFromEnvironment } from '@social-publisher/telemetry';

tuneHeapForServing();

const telemetry = await startTelemetryFromEnvironment(process.env, 'worker');
const { serve } = await import('./serve.ts');
serve(telemetry);
