import { typeName } from '@social-publisher/domain';

export type Options = Record<string, unknown>;

/** The options object of one platform (`platform_options.<platform>`), or an empty one. */
export function optionsOf(all: Record<string, unknown> | undefined, platform: string): Options {
  const value = all?.[platform];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Options)
    : {};
}

export const boolOption = (options: Options, key: string): boolean | undefined => {
  const value = options[key];
  return typeof value === 'boolean' ? value : undefined;
};

export const stringOption = (options: Options, key: string): string | undefined => {
  const value = options[key];
  return typeof value === 'string' ? value : undefined;
};

/** Whether `value` is an absolute http(s) URL (an option a platform will link to or fetch). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** How an option's value is named in a message: a string quoted, anything else by its type. */
export const describeValue = (value: unknown): string =>
  typeof value === 'string' ? JSON.stringify(value) : typeName(value);
