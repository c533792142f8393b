import type { Platform, PlatformPublisher, PublishOutcome } from '@social-publisher/domain';

/**
 * The publisher of a platform whose real API is not implemented yet: every non-sandbox
 * publish fails at once, permanently, saying so. Never a success that did not happen
 * (sandbox connections are the way to try the service without the platform).
 */
export function createNotYetPublisher(platform: Platform, label: string): PlatformPublisher {
  const outcome: PublishOutcome = {
    kind: 'failed',
    code: 'platform_not_supported_yet',
    message: `publishing to ${label} is not supported yet: nothing was posted. Use a sandbox connection to try the service`,
    retryable: false,
  };
  const publish = async () => outcome;
  return { platform, validate: () => [], publish, resume: publish };
}
