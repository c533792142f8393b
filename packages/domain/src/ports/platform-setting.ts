/**
 * An environment setting a platform declares (an API host, a client id, a rate limit): the
 * shape both sides agree on. The platform adapters declare theirs beside each publisher
 * (adapter-platforms' `PlatformSetting` adds the words the docs show), and config reads every
 * one with the same readers and errors as its own variables.
 */
export interface PlatformSettingSpec {
  /** The environment variable, e.g. ACME_API_BASE_URL. */
  env: string;
  /** Older names still honoured when `env` is unset. */
  aliases?: readonly string[];
  /** `url`: an absolute http(s) URL, trailing slashes removed. */
  kind: 'url' | 'string';
  /** Used when the variable is unset; without one the value is `undefined`. */
  default?: string;
  /** A `string` must match this (with `hint` saying what it should look like). */
  pattern?: RegExp;
  hint?: string;
  /** Another setting (by key) that must be set whenever this one is, e.g. a client secret. */
  requiredWith?: string;
}
