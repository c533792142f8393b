/** The payload types the client exports, by event (checked by the type checker and at run time). */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { WebhookEvent, WebhookPayload, WebhookPayloads } from '../src/index.ts';

describe('WebhookPayloads', () => {
  it('types each event by its name, the SPEC keys first and event_id last', () => {
    const body =
      '{"event":"post.failed","account_id":"0190f0e2-0000-7000-8000-000000000001","post_id":"0190f0e3-0000-7000-8000-000000000002","timestamp":"2030-01-31T09:30:02.123Z","data":{"failed":2,"total":2},"event_id":"0190f0e4-0000-7000-8000-000000000003"}';
    const payload = JSON.parse(body) as WebhookPayload;
    expectTypeOf<WebhookPayloads['post.failed']['data']>().toEqualTypeOf<{
      failed: number;
      total: number;
    }>();
    expectTypeOf<WebhookPayloads['social_account.expired']>().toHaveProperty('social_account_id');
    expectTypeOf<WebhookPayloads['post.published']>().toHaveProperty('event_id');
    if (payload.event !== 'post.failed') throw new Error('narrowing by event');
    expectTypeOf(payload.data.total).toBeNumber();
    expect(Object.keys(payload)).toEqual([
      'event',
      'account_id',
      'post_id',
      'timestamp',
      'data',
      'event_id',
    ]);
  });

  it('names the seventeen events of the catalogue', () => {
    const events: Record<WebhookEvent, true> = {
      'post.created': true,
      'post.updated': true,
      'post.cancelled': true,
      'post.published': true,
      'post.partial': true,
      'post.failed': true,
      'post.target.published': true,
      'post.target.failed': true,
      'post.unpublished': true,
      'post.approval_requested': true,
      'post.approved': true,
      'post.rejected': true,
      'post.metrics_updated': true,
      'social_account.connected': true,
      'social_account.expired': true,
      'social_account.disconnected': true,
      'comment.received': true,
    };
    expect(Object.keys(events)).toHaveLength(17);
  });
});
