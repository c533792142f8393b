/**
 * The SDK's own warnings and errors (a collector that cannot be reached, an export refused),
 * which OpenTelemetry otherwise drops: one JSON line on stderr, at most once a minute, so that
 * an operator sees why no trace arrives without a collector outage flooding the log. Only each
 * argument's message, cut short: never the objects the SDK passes along.
 */
import { type DiagLogFunction, DiagLogLevel, diag } from '@opentelemetry/api';

const EVERY_MS = 60_000;
const MAX_CHARS = 300;

const textOf = (value: unknown): string =>
  value instanceof Error ? value.message : typeof value === 'string' ? value : '';

export function reportSdkProblems(
  write: (line: string) => void = (line) => process.stderr.write(line),
): void {
  let last = 0;
  let suppressed = 0;
  const report =
    (level: number): DiagLogFunction =>
    (message, ...args) => {
      const now = Date.now();
      if (now - last < EVERY_MS) {
        suppressed += 1;
        return;
      }
      last = now;
      const detail = [message, ...args.map(textOf)].filter((part) => part !== '').join(' ');
      const line = {
        level,
        time: new Date(now).toISOString(),
        msg: `tracing: ${detail.slice(0, MAX_CHARS)}`,
        ...(suppressed > 0 ? { suppressed } : {}),
      };
      suppressed = 0;
      write(`${JSON.stringify(line)}\n`);
    };
  const ignore: DiagLogFunction = () => {};
  // pino's numbers: 50 error, 40 warn.
  diag.setLogger(
    { error: report(50), warn: report(40), info: ignore, debug: ignore, verbose: ignore },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}
