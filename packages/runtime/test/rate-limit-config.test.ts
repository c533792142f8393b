import { ConfigError } from '@social-publisher/config';
import { loadRuntimeConfig } from '@social-publisher/runtime';
import { describe, expect, it } from 'vitest';

/** What loadRuntimeConfig throws for `source`, or undefined. */
function refusal(source: Record<string, string>): unknown {
  try {
    loadRuntimeConfig(source);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('<PLATFORM>_RATE_LIMIT at start-up', () => {
  it.each([
    ['TIKTOK_RATE_LIMIT', '6/0s'],
    ['X_RATE_LIMIT', 'abc'],
    ['LINKEDIN_RATE_LIMIT', '6/60x'],
    ['INSTAGRAM_RATE_LIMIT', '0/24h'],
    ['FACEBOOK_RATE_LIMIT', '6 / 60s'],
    ['YOUTUBE_RATE_LIMIT', '-1/1d'],
  ])('%s=%s stops start-up with one line naming the variable', (variable, value) => {
    const caught = refusal({ [variable]: value });
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    const message = (caught as Error).message;
    expect(message).toContain(`${variable} must look like 6/60s or 100/15m`);
    expect(message).toContain(`got "${value}"`);
    expect(message).not.toContain('\n');
  });

  it('good values and off are taken as given', () => {
    const config = loadRuntimeConfig({
      TIKTOK_RATE_LIMIT: '12/1m',
      X_RATE_LIMIT: '300/15m',
      LINKEDIN_RATE_LIMIT: 'off',
    });
    expect(config.platforms.settings).toMatchObject({
      tiktok: { rateLimit: '12/1m' },
      twitter: { rateLimit: '300/15m' },
      linkedin: { rateLimit: 'off' },
    });
  });
});
