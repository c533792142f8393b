// A Mastodon instance is a URL the user gives: it is checked like a media URL (net-guard, the
// same MEDIA_ALLOW_PRIVATE_NETWORKS switch) and every call to it goes through the guarded
// dispatcher, which checks each address it connects to. Plain http only with that switch on
// (tests, local development).
import type { PlatformData } from '@social-publisher/domain';
import { checkUrl } from '@social-publisher/net-guard';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { fail } from '../shared/outcome.ts';

export type InstanceCheck = { ok: true; origin: string } | { ok: false; message: string };

/** The instance as we key and call it: its origin (scheme, host, port), nothing else. */
export function normaliseInstance(value: unknown, runtime: PublisherRuntime): InstanceCheck {
  if (typeof value !== 'string' || value.trim() === '') {
    return {
      ok: false,
      message: 'must be the URL of a Mastodon instance, like https://mastodon.social',
    };
  }
  const allow = runtime.mediaAllowPrivateNetworks === true;
  const check = checkUrl(value.trim(), { allowHttp: allow, allowPrivateNetworks: allow });
  if (!check.ok) return { ok: false, message: `is refused: ${check.reason}` };
  return { ok: true, origin: check.url.origin };
}

/** `runtime` whose API calls go through the SSRF guard: the instance is the user's choice. */
export const instanceRuntime = (runtime: PublisherRuntime): PublisherRuntime => ({
  ...runtime,
  apiDispatcher: runtime.mediaDispatcher,
});

/** What a Mastodon connection keeps (platform data): its instance and its status length. */
export interface MastodonConnectionData {
  instance: string;
  maxCharacters: number;
}

/** Mastodon's own default when an instance does not say. */
export const DEFAULT_MAX_CHARACTERS = 500;

export const connectionData = (data: MastodonConnectionData): PlatformData => ({ ...data });

/** The instance's status length for a connection (500 when it was not read). */
export function maxCharactersOf(data: PlatformData | null): number {
  const value = data?.maxCharacters;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
    ? value
    : DEFAULT_MAX_CHARACTERS;
}

/** The instance a connection publishes to; a connection made without one cannot publish. */
export function instanceOf(data: PlatformData | null): string {
  const instance = data?.instance;
  if (typeof instance === 'string' && instance !== '') return instance;
  throw fail(
    'instance_unknown',
    'this Mastodon connection does not know its instance: connect it with POST /social-accounts/connect and an instance',
    false,
  );
}
