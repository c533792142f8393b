import type { PlatformSettingSpec } from '@social-publisher/domain';
import type { env } from './env-readers.ts';

// A setting a platform declares (the domain's PlatformSettingSpec): config reads every
// platform's settings with the same readers and errors as its own variables.
export type { PlatformSettingSpec };

/** What config needs of a platform: its name and its settings. */
export interface PlatformSettingsSource {
  name: string;
  settings: Readonly<Record<string, PlatformSettingSpec>>;
}

export type PlatformSettingValues = Record<string, Record<string, string | undefined>>;

type Readers = ReturnType<typeof env>;

function readSetting(e: Readers, spec: PlatformSettingSpec): string | undefined {
  // The first set name wins: the current one, then the older aliases.
  const name = [spec.env, ...(spec.aliases ?? [])].find(
    (candidate) => e.string(candidate) !== null,
  );
  if (name === undefined) return spec.default;
  if (spec.kind === 'url') return e.url(name, ['https:', 'http:']) ?? spec.default;
  const value = e.string(name) ?? spec.default;
  if (value !== undefined && spec.pattern && !spec.pattern.test(value)) {
    const problem = `must look ${spec.hint ?? `like ${spec.pattern}`}, got "${value}"`;
    return e.report(name, problem, spec.default);
  }
  return value;
}

/** Every platform's settings, by platform name then setting key. */
export function readPlatformSettings(
  e: Readers,
  platforms: readonly PlatformSettingsSource[],
): PlatformSettingValues {
  return Object.fromEntries(
    platforms.map(({ name, settings }) => {
      const values = Object.fromEntries(
        Object.entries(settings).map(([key, spec]) => [key, readSetting(e, spec)]),
      );
      for (const [key, spec] of Object.entries(settings)) {
        const partner = spec.requiredWith === undefined ? undefined : settings[spec.requiredWith];
        if (partner && values[key] !== undefined && values[spec.requiredWith ?? ''] === undefined) {
          e.report(partner.env, `must be set together with ${spec.env}`, undefined);
        }
      }
      return [name, values];
    }),
  );
}
