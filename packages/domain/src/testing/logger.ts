import type { Logger } from '../ports/index.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogEntry {
  level: LogLevel;
  obj: object;
  msg: string | undefined;
}

/** Prints nothing; keeps every entry so tests can assert on warnings. */
export class MemoryLogger implements Logger {
  readonly entries: LogEntry[] = [];

  debug(obj: object, msg?: string): void {
    this.entries.push({ level: 'debug', obj, msg });
  }
  info(obj: object, msg?: string): void {
    this.entries.push({ level: 'info', obj, msg });
  }
  warn(obj: object, msg?: string): void {
    this.entries.push({ level: 'warn', obj, msg });
  }
  error(obj: object, msg?: string): void {
    this.entries.push({ level: 'error', obj, msg });
  }

  at(level: LogLevel): LogEntry[] {
    return this.entries.filter((entry) => entry.level === level);
  }
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
