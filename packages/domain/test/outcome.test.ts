import { describe, expect, it } from 'vitest';
import { buildWebhookPayload, postOutcome, type TargetStatus } from '../src/index.ts';

const targets = (...statuses: TargetStatus[]) => statuses.map((status) => ({ status }));

describe('postOutcome', () => {
  it('published when nothing failed', () => {
    expect(postOutcome(targets('published', 'published'))).toEqual({
      status: 'published',
      event: 'post.published',
      published: 2,
      failed: 0,
      total: 2,
    });
  });

  it('failed when nothing was published', () => {
    expect(postOutcome(targets('failed', 'failed', 'failed'))).toMatchObject({
      status: 'failed',
      event: 'post.failed',
      published: 0,
      failed: 3,
      total: 3,
    });
  });

  it('partial when mixed', () => {
    expect(postOutcome(targets('published', 'failed'))).toEqual({
      status: 'partial',
      event: 'post.partial',
      published: 1,
      failed: 1,
      total: 2,
    });
  });

  it('counts cancelled targets as failed, so published + failed = total', () => {
    expect(postOutcome(targets('published', 'cancelled'))).toMatchObject({
      status: 'partial',
      published: 1,
      failed: 1,
      total: 2,
    });
    expect(postOutcome(targets('cancelled'))).toMatchObject({ status: 'failed', failed: 1 });
  });

  it('a post without targets published nothing', () => {
    expect(postOutcome([])).toMatchObject({ status: 'failed', published: 0, failed: 0, total: 0 });
  });
});

describe('buildWebhookPayload', () => {
  const base = {
    accountId: 'acc-1',
    postId: 'post-1',
    timestamp: new Date('2026-01-01T12:00:00Z'),
    published: 1,
    failed: 1,
    total: 2,
    eventId: 'evt-1',
  };

  it('writes the exact bytes, keys in the documented order', () => {
    expect(buildWebhookPayload({ ...base, event: 'post.partial' })).toBe(
      '{"event":"post.partial","account_id":"acc-1","post_id":"post-1","timestamp":"2026-01-01T12:00:00.000Z","data":{"published":1,"failed":1,"total":2},"event_id":"evt-1"}',
    );
  });

  it('leaves data.published out of post.failed', () => {
    const body = buildWebhookPayload({ ...base, event: 'post.failed', published: 0, failed: 2 });
    expect(body).toBe(
      '{"event":"post.failed","account_id":"acc-1","post_id":"post-1","timestamp":"2026-01-01T12:00:00.000Z","data":{"failed":2,"total":2},"event_id":"evt-1"}',
    );
    expect(JSON.parse(body).data).not.toHaveProperty('published');
  });

  it('accepts a timestamp string as is', () => {
    const body = buildWebhookPayload({
      ...base,
      event: 'post.published',
      timestamp: '2026-01-01T00:00:00Z',
    });
    expect(JSON.parse(body).timestamp).toBe('2026-01-01T00:00:00Z');
  });
});
