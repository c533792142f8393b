// PUT/GET /social-accounts/:id/slots and POST /posts/queue through the app, on the in-memory
// fakes (the fake clock is 2026-01-01T00:00Z, a Thursday): shapes, access, Idempotency-Key.
import type { SocialAccount } from '@social-publisher/domain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  type Harness,
  seedConnection,
} from './support.ts';

let h: Harness;
let twitter: SocialAccount;

beforeEach(async () => {
  h = await createHarness();
  twitter = await seedConnection(h.deps, h.alice.user.id, 'twitter');
});
afterEach(() => h.close());

const putSlots = (payload: unknown, as = h.alice, id = twitter.id) =>
  h.call({
    method: 'PUT',
    url: `/social-accounts/${id}/slots`,
    headers: h.as(as),
    payload: payload as object,
  });
const queue = (payload: object, headers: Record<string, string> = {}) =>
  h.call({
    method: 'POST',
    url: '/posts/queue',
    headers: { ...h.as(h.alice), ...headers },
    payload,
  });

describe('posting slots', () => {
  it('PUT answers the slots as stored (week order), GET reads them back', async () => {
    const put = await putSlots({
      timezone: 'America/New_York',
      slots: [
        { day: 'fri', time: '12:00' },
        { day: 'mon', time: '08:15' },
      ],
    });
    expect(put.statusCode, put.body).toBe(200);
    const expected = {
      social_account_id: twitter.id,
      timezone: 'America/New_York',
      slots: [
        { day: 'mon', time: '08:15' },
        { day: 'fri', time: '12:00' },
      ],
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    expect(put.json().data).toEqual(expected);
    const got = await h.call({
      method: 'GET',
      url: `/social-accounts/${twitter.id}/slots`,
      headers: h.as(h.alice),
    });
    expect(got.json().data).toEqual(expected);
  });

  it('bad slots are a 400 naming the field; another user sees a 404', async () => {
    expectInvalid(
      await putSlots({ timezone: 'UTC', slots: [{ day: 'mon', time: '25:00' }] }),
      /slots/,
    );
    expectInvalid(await putSlots({ timezone: 'Not/AZone', slots: [] }), 'timezone');
    expectInvalid(
      await putSlots({
        timezone: 'UTC',
        slots: [
          { day: 'mon', time: '09:00' },
          { day: 'mon', time: '09:00' },
        ],
      }),
      'slots[1]',
    );
    expectError(await putSlots({ timezone: 'UTC', slots: [] }, h.bob), 404, 'not_found');
    expectError(
      await h.call({
        method: 'GET',
        url: `/social-accounts/${twitter.id}/slots`,
        headers: h.as(h.bob),
      }),
      404,
      'not_found',
    );
  });

  it('POST /posts/queue: 201 at the next slot with Location; the same Idempotency-Key replays it', async () => {
    await putSlots({
      timezone: 'UTC',
      slots: [
        { day: 'fri', time: '10:00' },
        { day: 'sat', time: '10:00' },
      ],
    });
    const first = await queue(
      { content: 'one', social_account_ids: [twitter.id] },
      { 'idempotency-key': 'q-1' },
    );
    expect(first.statusCode, first.body).toBe(201);
    const post = first.json().data;
    expect(post).toMatchObject({
      status: 'scheduled',
      scheduled_at: '2026-01-02T10:00:00.000Z',
      series_id: null,
    });
    expect(first.headers.location).toBe(`/posts/${post.id}`);
    const replay = await queue(
      { content: 'one', social_account_ids: [twitter.id] },
      { 'idempotency-key': 'q-1' },
    );
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data.id).toBe(post.id);
    // The replay took no slot: the next post gets Saturday.
    const second = await queue({ content: 'two', social_account_ids: [twitter.id] });
    expect(second.json().data.scheduled_at).toBe('2026-01-03T10:00:00.000Z');
  });

  it('POST /posts/queue: no_slots, and the rules of POST /posts', async () => {
    expectError(await queue({ content: 'x', social_account_ids: [twitter.id] }), 400, 'no_slots');
    await putSlots({ timezone: 'UTC', slots: [{ day: 'fri', time: '10:00' }] });
    expectInvalid(
      await queue({
        content: 'x',
        social_account_ids: [twitter.id],
        scheduled_at: '2026-02-01T00:00:00Z',
      }),
      'scheduled_at',
    );
    expectInvalid(
      await queue({ content: 'x'.repeat(300), social_account_ids: [twitter.id] }),
      /content/,
    );
    expectInvalid(await queue({ content: 'x' }), 'social_account_ids');
  });
});
