// What the removers' tests share: a platform's remover built from the registry as the worker
// builds it, and one removal of a published target with this connection.
import type {
  Platform,
  PlatformData,
  PlatformRemover,
  RemoveOutcome,
} from '@social-publisher/domain';
import { expect } from 'vitest';
import type { PlatformsConfig } from '../src/config.ts';
import { createPlatformRegistry } from '../src/registry.ts';

export function removerFor(platform: Platform, config: PlatformsConfig): PlatformRemover {
  const remover = createPlatformRegistry(config).remover(platform);
  if (!remover) throw new Error(`no remover for ${platform}`);
  return remover;
}

export interface RemovedTarget {
  platform: Platform;
  externalId: string;
  accessToken: string;
  platformPostId: string;
  threadPostIds?: readonly string[];
  firstCommentId?: string | null;
  platformData?: PlatformData | null;
  signal?: AbortSignal;
}

/** One removal of `target` (the connection's refresh token unknown, as a remover gets it). */
export function removeTarget(
  remover: PlatformRemover,
  target: RemovedTarget,
): Promise<RemoveOutcome> {
  return remover.remove({
    connection: {
      id: 'conn-1',
      platform: target.platform,
      externalId: target.externalId,
      accessToken: target.accessToken,
      refreshToken: null,
      tokenExpiresAt: null,
      platformData: target.platformData ?? null,
    },
    platformPostId: target.platformPostId,
    platformUrl: null,
    threadPostIds: target.threadPostIds ?? [],
    firstCommentId: target.firstCommentId ?? null,
    signal: target.signal ?? new AbortController().signal,
  });
}

/** A throttled outcome whose wait ends between `fromMs` and `toMs` from now. */
export function expectThrottledFor(outcome: RemoveOutcome, fromMs: number, toMs: number) {
  expect(outcome.kind).toBe('throttled');
  if (outcome.kind !== 'throttled') return;
  const waitMs = outcome.retryAt.getTime() - Date.now();
  expect(waitMs).toBeGreaterThan(fromMs);
  expect(waitMs).toBeLessThanOrEqual(toMs);
}
