import { WEBHOOK_EVENTS, type WebhookDelivery } from '@social-publisher/domain';
import { seedConnection } from '@social-publisher/domain/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectError,
  expectInvalid,
  type Harness,
  seedWorkspace,
} from './support.ts';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const EVENTS = ['post.published', 'post.failed'];
const createWebhook = (payload: object, headers = h.as(h.alice)) =>
  h.call({ method: 'POST', url: '/webhooks', headers, payload });

async function seedDelivery(webhookId: string): Promise<WebhookDelivery> {
  const delivery: WebhookDelivery = {
    id: h.deps.ids.newId(),
    webhookId,
    accountId: h.alice.user.id,
    postId: h.deps.ids.newId(),
    event: 'post.published',
    payload: '{"event":"post.published"}',
    status: 'failed',
    attempts: 8,
    lastStatusCode: 500,
    lastError: 'HTTP 500',
    nextAttemptAt: null,
    deliveredAt: null,
    createdAt: h.deps.clock.now(),
  };
  await h.deps.repos.deliveries.insertMany([delivery]);
  return delivery;
}

describe('POST /webhooks', () => {
  it('201 { data: { id, url, events, active, created_at, secret } } with Location', async () => {
    const response = await createWebhook({ url: 'https://hooks.example.com/sp', events: EVENTS });
    expect(response.statusCode).toBe(201);
    const data = response.json().data;
    expect(Object.keys(data).sort()).toEqual([
      'active',
      'created_at',
      'disabled_reason',
      'events',
      'id',
      'secret',
      'social_account_ids',
      'url',
    ]);
    expect(data).toMatchObject({
      url: 'https://hooks.example.com/sp',
      events: EVENTS,
      social_account_ids: null,
      active: true,
      disabled_reason: null,
    });
    expect(data.secret).toMatch(/^whsec_/);
    expect(response.headers.location).toBe(`/webhooks/${data.id}`);
  });

  it('url must be https', async () => {
    expectInvalid(
      await createWebhook({ url: 'http://hooks.example.com/sp', events: EVENTS }),
      'url',
    );
  });

  it('url must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)', async () => {
    for (const url of [
      'https://127.0.0.1/x',
      'https://10.0.0.8/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
    ]) {
      expectInvalid(await createWebhook({ url, events: EVENTS }), 'url');
    }
  });

  it('events: a non-empty subset of the events, no unknown ones', async () => {
    expectInvalid(await createWebhook({ url: 'https://h.example.com', events: [] }), 'events');
    expectInvalid(
      await createWebhook({ url: 'https://h.example.com', events: ['post.deleted'] }),
      'events[0]',
    );
    expectInvalid(await createWebhook({ url: 'https://h.example.com' }), 'events');
    expectInvalid(await createWebhook({ events: EVENTS }), 'url');
  });

  it('events: all four at once, social_account.expired included', async () => {
    const all = ['post.published', 'post.failed', 'post.partial', 'social_account.expired'];
    const created = await createWebhook({ url: 'https://h.example.com/all', events: all });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.events).toEqual(all);
  });

  it('social_account_ids: only connections of the webhook account, each once', async () => {
    const mine = await seedConnection(h.deps, h.alice.user.id, 'twitter');
    const bobs = await seedConnection(h.deps, h.bob.user.id, 'twitter');
    const url = 'https://h.example.com/filtered';
    const created = await createWebhook({ url, events: EVENTS, social_account_ids: [mine.id] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.social_account_ids).toEqual([mine.id]);
    const foreign = await createWebhook({
      url,
      events: EVENTS,
      social_account_ids: [mine.id, bobs.id],
    });
    expectInvalid(foreign, 'social_account_ids');
    expect(foreign.body).toContain(bobs.id);
    expectInvalid(
      await createWebhook({ url, events: EVENTS, social_account_ids: [] }),
      /^social_account_ids/,
    );
    expectInvalid(
      await createWebhook({ url, events: EVENTS, social_account_ids: [mine.id, mine.id] }),
      'social_account_ids[1]',
    );
    expectInvalid(
      await createWebhook({ url, events: EVENTS, social_account_ids: ['nope'] }),
      /^social_account_ids/,
    );
  });

  it('events: every event of the catalogue at once', async () => {
    const all = [...WEBHOOK_EVENTS];
    const created = await createWebhook({ url: 'https://h.example.com/every', events: all });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.events).toEqual(all);
  });

  it('workspace_id of a team the caller is not in: 403', async () => {
    const team = await seedWorkspace(h.deps, h.bob);
    expectError(
      await createWebhook({
        url: 'https://h.example.com',
        events: EVENTS,
        workspace_id: team.account.id,
      }),
      403,
      'forbidden',
    );
  });
});

describe('GET /webhooks', () => {
  it('lists without secrets; workspace_id selects a team', async () => {
    await createWebhook({ url: 'https://h.example.com/a', events: EVENTS });
    const team = await seedWorkspace(h.deps, h.alice);
    await createWebhook({
      url: 'https://h.example.com/team',
      events: EVENTS,
      workspace_id: team.account.id,
    });
    const personal = await h.call({ method: 'GET', url: '/webhooks', headers: h.as(h.alice) });
    expect(personal.statusCode).toBe(200);
    expect(personal.json().data).toHaveLength(1);
    expect(Object.keys(personal.json().data[0]).sort()).toEqual([
      'active',
      'created_at',
      'disabled_reason',
      'events',
      'id',
      'social_account_ids',
      'url',
    ]);
    expect(personal.body).not.toContain('whsec_');
    const inTeam = await h.call({
      method: 'GET',
      url: `/webhooks?workspace_id=${team.account.id}`,
      headers: h.as(h.alice),
    });
    expect(inTeam.json().data.map((w: { url: string }) => w.url)).toEqual([
      'https://h.example.com/team',
    ]);
    expectError(
      await h.call({
        method: 'GET',
        url: `/webhooks?workspace_id=${team.account.id}`,
        headers: h.as(h.bob),
      }),
      403,
    );
  });
});

describe('GET /webhooks/:id', () => {
  it('shows disabled_reason once the service turned it off; PATCH active clears it', async () => {
    const created = (await createWebhook({ url: 'https://h.example.com', events: EVENTS })).json()
      .data;
    const url = `/webhooks/${created.id}`;
    const get = () => h.call({ method: 'GET', url, headers: h.as(h.alice) });
    expect((await get()).json().data).toMatchObject({ active: true, disabled_reason: null });
    await h.deps.repos.webhooks.disable(created.id, 'every delivery failed for 5 days');
    const disabled = await get();
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().data).toMatchObject({
      id: created.id,
      active: false,
      disabled_reason: 'every delivery failed for 5 days',
    });
    expect(disabled.body).not.toContain('whsec_');
    const listed = await h.call({ method: 'GET', url: '/webhooks', headers: h.as(h.alice) });
    expect(listed.json().data[0].disabled_reason).toBe('every delivery failed for 5 days');
    await h.call({ method: 'PATCH', url, headers: h.as(h.alice), payload: { active: true } });
    expect((await get()).json().data).toMatchObject({ active: true, disabled_reason: null });
    expectError(await h.call({ method: 'GET', url, headers: h.as(h.bob) }), 404);
  });
});

describe('the OpenAPI webhooks section', () => {
  it('describes every event of the catalogue with its payload', async () => {
    const document = (await h.call({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toMatch(/^3\.1/);
    expect(Object.keys(document.webhooks)).toEqual([...WEBHOOK_EVENTS]);
    const ref =
      document.webhooks['post.failed'].post.requestBody.content['application/json'].schema.$ref;
    expect(ref).toBe('#/components/schemas/PostFailedPayload');
    const payload = document.components.schemas.PostFailedPayload;
    expect(Object.keys(payload.properties)).toEqual([
      'event',
      'account_id',
      'post_id',
      'timestamp',
      'data',
      'event_id',
    ]);
    expect(Object.keys(payload.properties.data.properties)).toEqual(['failed', 'total']);
    const expired = document.components.schemas.SocialAccountExpiredPayload;
    expect(Object.keys(expired.properties)).toEqual([
      'event',
      'account_id',
      'social_account_id',
      'platform',
      'timestamp',
      'data',
      'event_id',
    ]);
  });
});

describe('PATCH /webhooks/:id', () => {
  it('echoes { id, active } and toggles both ways', async () => {
    const created = (await createWebhook({ url: 'https://h.example.com', events: EVENTS })).json()
      .data;
    const off = await h.call({
      method: 'PATCH',
      url: `/webhooks/${created.id}`,
      headers: h.as(h.alice),
      payload: { active: false },
    });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toEqual({ data: { id: created.id, active: false } });
    const on = await h.call({
      method: 'PATCH',
      url: `/webhooks/${created.id}`,
      headers: h.as(h.alice),
      payload: { active: true },
    });
    expect(on.json()).toEqual({ data: { id: created.id, active: true } });
  });

  it('active is a required boolean; others are 404', async () => {
    const created = (await createWebhook({ url: 'https://h.example.com', events: EVENTS })).json()
      .data;
    const url = `/webhooks/${created.id}`;
    expectInvalid(
      await h.call({ method: 'PATCH', url, headers: h.as(h.alice), payload: {} }),
      'active',
    );
    expectInvalid(
      await h.call({ method: 'PATCH', url, headers: h.as(h.alice), payload: { active: 'no' } }),
      'active',
    );
    expectError(
      await h.call({ method: 'PATCH', url, headers: h.as(h.bob), payload: { active: false } }),
      404,
    );
  });
});

describe('DELETE /webhooks/:id', () => {
  it('204, then 404', async () => {
    const created = (await createWebhook({ url: 'https://h.example.com', events: EVENTS })).json()
      .data;
    const url = `/webhooks/${created.id}`;
    expectError(await h.call({ method: 'DELETE', url, headers: h.as(h.bob) }), 404, 'not_found');
    const response = await h.call({ method: 'DELETE', url, headers: h.as(h.alice) });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expectError(await h.call({ method: 'DELETE', url, headers: h.as(h.alice) }), 404, 'not_found');
  });
});

describe('deliveries', () => {
  it('lists deliveries with their attempt log, and redelivers (202)', async () => {
    const webhook = (await createWebhook({ url: 'https://h.example.com', events: EVENTS })).json()
      .data;
    const delivery = await seedDelivery(webhook.id);
    const list = await h.call({
      method: 'GET',
      url: `/webhooks/${webhook.id}/deliveries`,
      headers: h.as(h.alice),
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data[0]).toMatchObject({
      id: delivery.id,
      webhook_id: webhook.id,
      event: 'post.published',
      status: 'failed',
      last_status_code: 500,
      attempt_log: [],
    });
    const again = await h.call({
      method: 'POST',
      url: `/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`,
      headers: h.as(h.alice),
    });
    expect(again.statusCode).toBe(202);
    expect(again.json().data).toMatchObject({ id: delivery.id, status: 'pending', attempts: 0 });
    expect(h.deps.queue.enqueued).toContainEqual({ kind: 'deliver', id: delivery.id, runAt: null });
  });

  it('limit is validated; others and unknown ids are 404; a disabled webhook is 409', async () => {
    const webhook = (await createWebhook({ url: 'https://h.example.com', events: EVENTS })).json()
      .data;
    const delivery = await seedDelivery(webhook.id);
    for (const limit of ['0', '1.5']) {
      expectInvalid(
        await h.call({
          method: 'GET',
          url: `/webhooks/${webhook.id}/deliveries?limit=${limit}`,
          headers: h.as(h.alice),
        }),
        'limit',
      );
    }
    const limited = await h.call({
      method: 'GET',
      url: `/webhooks/${webhook.id}/deliveries?limit=1`,
      headers: h.as(h.alice),
    });
    expect(limited.json().data).toHaveLength(1);
    expectError(
      await h.call({
        method: 'GET',
        url: `/webhooks/${webhook.id}/deliveries`,
        headers: h.as(h.bob),
      }),
      404,
    );
    expectError(
      await h.call({
        method: 'POST',
        url: `/webhooks/${webhook.id}/deliveries/00000000-0000-7000-8000-00000000ffff/redeliver`,
        headers: h.as(h.alice),
      }),
      404,
    );
    await h.call({
      method: 'PATCH',
      url: `/webhooks/${webhook.id}`,
      headers: h.as(h.alice),
      payload: { active: false },
    });
    expectError(
      await h.call({
        method: 'POST',
        url: `/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`,
        headers: h.as(h.alice),
      }),
      409,
      'conflict',
    );
  });
});
