export { inEnqueueSpan, inJobSpan, type TraceCarrier } from './messaging.ts';
export {
  activeTraceparent,
  contextOfTraceparent,
  type InSpanOptions,
  inSpan,
  type ServerSpan,
  type SpanKindName,
  startServerSpan,
  TRACER_NAME,
  traceLogFields,
} from './spans.ts';
export {
  type ProcessKind,
  SERVICE_NAMES,
  serviceNameOf,
  startTelemetry,
  startTelemetryFromEnvironment,
  type Telemetry,
} from './start.ts';
export { pathTemplate } from './url-template.ts';
