import { ConfigError, type ConfigProblem } from './errors.ts';

/**
 * Typed readers over an environment map; empty strings count as unset. With `problems`, a bad
 * value is recorded there and the reader returns the fallback, so that every problem can be
 * reported at once; without, it throws ConfigError at once.
 */
export function env(source: Record<string, string | undefined>, problems?: ConfigProblem[]) {
  const raw = (name: string): string | null => {
    const value = source[name]?.trim();
    return value === undefined || value === '' ? null : value;
  };
  /** Records (or throws) a problem; returns `fallback` for the caller to go on with. */
  function report<T>(variable: string, problem: string, fallback: T): T {
    if (!problems) throw new ConfigError(variable, problem);
    problems.push({ variable, problem });
    return fallback;
  }
  return {
    string: raw,
    report,
    int(name: string, fallback: number, min: number, max: number): number {
      const value = raw(name);
      if (value === null) return fallback;
      if (!/^\d+$/.test(value))
        return report(name, `must be a whole number, got "${value}"`, fallback);
      const n = Number(value);
      if (n < min || n > max)
        return report(name, `must be between ${min} and ${max}, got ${n}`, fallback);
      return n;
    },
    bool(name: string, fallback: boolean): boolean {
      const value = raw(name)?.toLowerCase() ?? null;
      if (value === null) return fallback;
      if (['1', 'true', 'yes', 'on'].includes(value)) return true;
      if (['0', 'false', 'no', 'off'].includes(value)) return false;
      return report(name, `must be true or false, got "${value}"`, fallback);
    },
    url(name: string, protocols: string[]): string | null {
      const value = raw(name);
      if (value === null) return null;
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return report(name, `must be an absolute URL, got "${value}"`, null);
      }
      if (!protocols.includes(parsed.protocol)) {
        return report(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`, null);
      }
      return value.replace(/\/+$/, '');
    },
    oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
      const value = raw(name);
      if (value === null) return fallback;
      if (!(allowed as readonly string[]).includes(value)) {
        return report(name, `must be one of ${allowed.join(', ')}, got "${value}"`, fallback);
      }
      return value as T;
    },
    matching(name: string, pattern: RegExp, fallback: string, hint: string): string {
      const value = raw(name);
      if (value === null) return fallback;
      if (!pattern.test(value)) return report(name, `must look ${hint}, got "${value}"`, fallback);
      return value;
    },
  };
}

/** The readers of one environment, as every section's reader takes them. */
export type Env = ReturnType<typeof env>;
