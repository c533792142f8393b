import { ConfigError } from './errors.ts';

/** Typed readers over an environment map; empty strings count as unset. */
export function env(source: Record<string, string | undefined>) {
  const raw = (name: string): string | null => {
    const value = source[name]?.trim();
    return value === undefined || value === '' ? null : value;
  };
  return {
    string: raw,
    int(name: string, fallback: number, min: number, max: number): number {
      const value = raw(name);
      if (value === null) return fallback;
      if (!/^\d+$/.test(value))
        throw new ConfigError(name, `must be a whole number, got "${value}"`);
      const n = Number(value);
      if (n < min || n > max)
        throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
      return n;
    },
    bool(name: string, fallback: boolean): boolean {
      const value = raw(name)?.toLowerCase() ?? null;
      if (value === null) return fallback;
      if (['1', 'true', 'yes', 'on'].includes(value)) return true;
      if (['0', 'false', 'no', 'off'].includes(value)) return false;
      throw new ConfigError(name, `must be true or false, got "${value}"`);
    },
    url(name: string, protocols: string[]): string | null {
      const value = raw(name);
      if (value === null) return null;
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw new ConfigError(name, 'must be an absolute URL');
      }
      if (!protocols.includes(parsed.protocol)) {
        throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
      }
      return value.replace(/\/+$/, '');
    },
    oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
      const value = raw(name);
      if (value === null) return fallback;
      if (!(allowed as readonly string[]).includes(value)) {
        throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
      }
      return value as T;
    },
    matching(name: string, pattern: RegExp, fallback: string, hint: string): string {
      const value = raw(name);
      if (value === null) return fallback;
      if (!pattern.test(value)) throw new ConfigError(name, `must look ${hint}, got "${value}"`);
      return value;
    },
  };
}
