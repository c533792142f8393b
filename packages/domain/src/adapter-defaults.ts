/** What adapters fall back on when the composition root leaves an option out. */
import type { Logger } from './ports/system.ts';

/** Warnings and errors as JSON lines on the console; debug and info dropped. */
export const consoleLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (obj, msg) => console.warn(JSON.stringify({ level: 'warn', msg, ...obj })),
  error: (obj, msg) => console.error(JSON.stringify({ level: 'error', msg, ...obj })),
};

/** `value` (or `fallback` when absent), which must be a positive integer: a wiring mistake else. */
export function positiveIntOption(
  owner: string,
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < 1) {
    throw new Error(`${owner}: ${name} must be a positive integer, got ${value}`);
  }
  return result;
}
