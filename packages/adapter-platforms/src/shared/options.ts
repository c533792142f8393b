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
