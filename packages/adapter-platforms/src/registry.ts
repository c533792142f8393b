import type {
  Platform,
  PlatformCommentsClient,
  PlatformCredentials,
  PlatformMetricsReader,
  PlatformOAuth,
  PlatformPublisher,
  PlatformRegistry,
  PlatformRemover,
  PlatformRules,
} from '@social-publisher/domain';
import { createGuardedDispatcher } from '@social-publisher/net-guard';
import { getGlobalDispatcher } from 'undici';
import {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_POLL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type PlatformsConfig,
} from './config.ts';
import type { PlatformDescriptor } from './descriptor.ts';
import { PLATFORM_DESCRIPTORS } from './platforms.ts';
import type { PublisherRuntime } from './publisher-runtime.ts';

/** What every publisher shares, with the defaults filled in. */
export function publisherRuntime(config: PlatformsConfig): PublisherRuntime {
  return {
    apiDispatcher: config.apiDispatcher ?? getGlobalDispatcher(),
    // Media URLs come from users: never fetched without the SSRF guard.
    mediaDispatcher:
      config.mediaDispatcher ?? createGuardedDispatcher({ allowPrivateNetworks: false }),
    mediaAllowPrivateNetworks: config.mediaAllowPrivateNetworks ?? false,
    pollIntervalMs: config.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    pollTimeoutMs: config.pollTimeoutMs ?? DEFAULT_POLL_TIMEOUT_MS,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  };
}

/**
 * A platform's settings as its publisher and connector may rely on them, whoever built them
 * (config, tests, tools): each missing (or empty) one taken from its declared default, and every
 * `url` without trailing slashes, so that `${base}/path` is always one slash. The one place both
 * are done: no platform trims or falls back on its own.
 */
function completeSettings(
  descriptor: PlatformDescriptor,
  given: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = { ...given };
  for (const [key, spec] of Object.entries(descriptor.settings)) {
    if (values[key] === undefined || values[key] === '') values[key] = spec.default;
    if (spec.kind === 'url') values[key] = values[key]?.replace(/\/+$/, '');
  }
  return values;
}

/**
 * The platforms of `descriptors` (default: every platform of this package), each with its
 * rules and its publisher built from `config.settings.<name>`.
 */
export function createPlatformRegistry(
  config: PlatformsConfig,
  descriptors: readonly PlatformDescriptor[] = PLATFORM_DESCRIPTORS,
): PlatformRegistry {
  const runtime = publisherRuntime(config);
  const publishers = new Map<Platform, PlatformPublisher>();
  const rules = new Map<Platform, PlatformRules>();
  const oauth = new Map<Platform, PlatformOAuth>();
  const credentials = new Map<Platform, PlatformCredentials>();
  const readers = new Map<Platform, PlatformMetricsReader>();
  const removers = new Map<Platform, PlatformRemover>();
  const commentsClients = new Map<Platform, PlatformCommentsClient>();
  for (const descriptor of descriptors) {
    rules.set(descriptor.name, descriptor.rules);
    const settings = completeSettings(descriptor, config.settings[descriptor.name] ?? {});
    publishers.set(descriptor.name, descriptor.createPublisher(settings, runtime));
    const connector = descriptor.createOAuth?.(settings, runtime);
    if (connector) oauth.set(descriptor.name, connector);
    const byCredentials = descriptor.createCredentials?.(settings, runtime);
    if (byCredentials) credentials.set(descriptor.name, byCredentials);
    const reader = descriptor.createMetricsReader?.(settings, runtime);
    if (reader) readers.set(descriptor.name, reader);
    const remover = descriptor.createRemover?.(settings, runtime);
    if (remover) removers.set(descriptor.name, remover);
    const comments = descriptor.createCommentsClient?.(settings, runtime);
    if (comments) commentsClients.set(descriptor.name, comments);
  }
  const names = descriptors.map((descriptor) => descriptor.name);
  return {
    names,
    rules: (platform) => rules.get(platform),
    get: (platform) => publishers.get(platform),
    oauth: (platform) => oauth.get(platform),
    credentials: (platform) => credentials.get(platform),
    metricsReader: (platform) => readers.get(platform),
    remover: (platform) => removers.get(platform),
    commentsClient: (platform) => commentsClients.get(platform),
  };
}
