import {
  type DomainError,
  type JobContext,
  outcomeData,
  type PlatformCatalog,
  type PlatformRules,
  type Problem,
  type Result,
  type WebhookDelivery,
} from '../src/index.ts';
import type { TestDeps } from '../src/testing/index.ts';
import { pendingDeliveries } from '../src/use-cases/pending-deliveries.ts';

export function unwrap<T>(result: Result<T, DomainError>): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

export function errorOf<T>(result: Result<T, DomainError>): DomainError {
  if (result.ok) throw new Error('expected an error, got ok');
  return result.error;
}

export function jobCtx(
  attempt = 1,
  maxAttempts = 5,
  signal = new AbortController().signal,
): JobContext {
  return { attempt, maxAttempts, waits: 0, signal };
}

export const UNKNOWN_ID = '0190a5d2-7a3b-7c4d-8e5f-0123456789ab';

/**
 * Platform rules for the domain's tests, shaped like real descriptors' (which live in
 * adapter-platforms and have tests of their own): media required, photos refused, a content
 * limit, an options rule. The domain tests check how the shared rules apply such rules.
 */
export function testRules(): PlatformRules[] {
  const open = { type: 'object', additionalProperties: true } as const;
  const rules = (name: string, extra: Partial<PlatformRules> = {}): PlatformRules => ({
    name,
    media: {},
    optionsSchema: open,
    validateOptions: () => [],
    ...extra,
  });
  return [
    rules('tiktok', {
      media: { requiredMessage: 'tiktok requires a video or photo URL' },
      validateOptions: (options, mediaUrls) => {
        const problems: Problem[] = [];
        if (options.tiktokAllowDuet !== undefined && typeof options.tiktokAllowDuet !== 'boolean') {
          problems.push({
            field: 'platform_options.tiktok.tiktokAllowDuet',
            message: 'must be a boolean',
          });
        }
        if (options.tiktokIsAigc === true && mediaUrls.every((url) => url.endsWith('.png'))) {
          problems.push({ field: 'platform_options.tiktok.tiktokIsAigc', message: 'videos only' });
        }
        return problems;
      },
    }),
    rules('instagram', { media: { requiredMessage: 'instagram requires at least one media URL' } }),
    rules('youtube', {
      media: {
        requiredMessage: 'youtube requires a video URL',
        refuses: { photo: 'youtube does not accept photos; give a video URL' },
      },
      validateOptions: (options) =>
        options.privacyStatus === undefined ||
        ['private', 'public', 'unlisted'].includes(String(options.privacyStatus))
          ? []
          : [
              {
                field: 'platform_options.youtube.privacyStatus',
                message: 'must be one of private, public, unlisted',
              },
            ],
    }),
    rules('twitter', { contentMaxLength: 280 }),
    rules('linkedin', { contentMaxLength: 3000 }),
    rules('facebook'),
  ];
}

/** A catalog of testRules(). */
export const testCatalog = (): PlatformCatalog => {
  const all = testRules();
  return { names: all.map((r) => r.name), rules: (name) => all.find((r) => r.name === name) };
};

/**
 * A `post.published` delivery of a post that does not exist, never attempted and due now,
 * stored; `fields` names its webhook and account and changes what a test needs.
 */
export async function storeDelivery(
  deps: TestDeps,
  fields: Pick<WebhookDelivery, 'webhookId' | 'accountId'> & Partial<WebhookDelivery>,
): Promise<WebhookDelivery> {
  const [pending] = pendingDeliveries(
    deps,
    [{ id: fields.webhookId }],
    {
      event: 'post.published',
      accountId: fields.accountId,
      postId: UNKNOWN_ID,
      data: outcomeData({ event: 'post.published', published: 1, failed: 0, total: 1 }),
    },
    deps.clock.now(),
  );
  const delivery: WebhookDelivery = { ...(pending as WebhookDelivery), ...fields };
  await deps.repos.deliveries.insertMany([delivery]);
  return delivery;
}
