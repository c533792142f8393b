import { parseRateLimit, type RateLimit } from '@social-publisher/domain';
import type { PlatformDescriptor, PlatformSettingValues } from './descriptor.ts';
import { PLATFORM_DESCRIPTORS } from './platforms.ts';

/**
 * Each platform's pacing limit from its `rateLimit` setting (`<PLATFORM>_RATE_LIMIT`, checked
 * by the config reader), else its declared default; null: not paced (`off`, or a platform
 * without the setting).
 */
export function platformRateLimits(
  settings: PlatformSettingValues,
  descriptors: readonly PlatformDescriptor[] = PLATFORM_DESCRIPTORS,
  /** `readRateLimit`: the budget of metric reads (`<PLATFORM>_READ_RATE_LIMIT`) instead. */
  key: 'rateLimit' | 'readRateLimit' = 'rateLimit',
): (platform: string) => RateLimit | null {
  const limits = new Map<string, RateLimit>();
  for (const descriptor of descriptors) {
    const given = settings[descriptor.name]?.[key];
    const text = given === undefined || given === '' ? descriptor.settings[key]?.default : given;
    const limit = text === undefined ? null : parseRateLimit(text);
    if (limit === undefined) {
      throw new Error(`${descriptor.settings[key]?.env}: not a <count>/<window>: ${text}`);
    }
    if (limit) limits.set(descriptor.name, limit);
  }
  return (platform) => limits.get(platform) ?? null;
}
