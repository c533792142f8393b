/**
 * The API's entry point.
 *   pnpm start      embedded mode: API and worker in one process (PGlite + in-process queue
 *                   unless DATABASE_URL / REDIS_URL are set)
 *   pnpm start:api  API only (production: DATABASE_URL and REDIS_URL; workers run apart)
 * The serving process's V8 settings first (heap-tuning.ts), then tracing, before the modules it
 * instruments load (the database driver), then serve.ts does the rest. Without
 * OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry's SDK is loaded.
 */
import { tuneHeapForServing } from '@social-publisher/runtime/heap-tuning';
import { startTelemetryFromEnvironment } from '@social-publisher/telemetry';

tuneHeapForServing();

const kind = process.argv.includes('--api-only') ? 'api' : 'embedded';
const telemetry = await startTelemetryFromEnvironment(process.env, kind);
const { serve } = await import('./serve.ts');
serve(telemetry);
