/**
 * docs/api.md against the code, so that neither drifts from the other unnoticed:
 *
 * 1. The routes: every route the served OpenAPI document lists is in a routes table of api.md,
 *    every route api.md lists in a table is served, and every `METHOD /path` the page mentions
 *    anywhere is a served route (a typo or a removed route fails here).
 * 2. The webhook payloads: the JSON examples of post.published, post.partial and post.failed
 *    have, level by level, exactly the keys (in the same order, with the same JSON types) of
 *    the payload the service stores and sends for a post with that outcome: a post is
 *    published through the publish job (which builds the payload when the post finishes) with
 *    scripted platform outcomes, and its delivery's payload is compared. The same for
 *    post.metrics_updated, sent by the worker's read pass for a sandbox post, and for
 *    comment.received, sent by the comments read pass.
 * 3. The catalogue: one example per event; the examples of every event sent today have the keys
 *    (level by level, in order) of a real delivery, produced by the use cases that cause them;
 *    every example has the top-level and `data` keys, in order, of its payload in the OpenAPI
 *    document's `webhooks` section (the events not sent yet are checked this way).
 */
import { readFileSync } from 'node:fs';
import {
  addMember,
  approvePost,
  cancelPost,
  connectSocialAccount,
  createPost,
  createWebhook,
  deleteSocialAccount,
  editPost,
  expireConnection,
  METRIC_NAMES,
  type MetricName,
  processPublishJob,
  readDueComments,
  readDueMetrics,
  rejectPost,
  unpublishPost,
  updateWorkspace,
  WEBHOOK_EVENTS,
} from '@social-publisher/domain';
import { failedOutcome, seedConnection } from '@social-publisher/domain/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, seedWorkspace } from './support.ts';

const API_MD = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');

const METHODS = 'GET|POST|PUT|PATCH|DELETE|HEAD';

/**
 * Routes api.md documents that the OpenAPI document leaves out on purpose, each with why. Keep
 * this list short: a route belongs in the OpenAPI document unless it is not part of the API.
 */
const DOCUMENTED_NOT_IN_OPENAPI: ReadonlyMap<string, string> = new Map([
  // Prometheus text for the operator's scraper, behind METRICS_TOKEN or on METRICS_PORT: an
  // operations endpoint, hidden from the API's document (schema.hide in routes/metrics.ts).
  ['GET /metrics', 'operations endpoint, not part of the API'],
]);

/** `GET /posts/:id` -> `GET /posts/{id}` (the OpenAPI spelling), query string dropped. */
function normalize(method: string, path: string): string {
  const bare = path.split('?')[0] ?? path;
  return `${method.toUpperCase()} ${bare.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
}

/** The routes of api.md's tables: rows whose first cell is `METHOD /path`. */
function tableRoutes(markdown: string): Set<string> {
  const row = new RegExp(`^\\|\\s*\`(${METHODS}) (/[^\`\\s]*)\`\\s*\\|`);
  const routes = new Set<string>();
  for (const line of markdown.split('\n')) {
    const match = row.exec(line);
    if (match?.[1] && match[2]) routes.add(normalize(match[1], match[2]));
  }
  return routes;
}

/** Every `METHOD /path` api.md mentions in code spans, tables and prose alike. */
function mentionedRoutes(markdown: string): Set<string> {
  const mention = new RegExp(`\`(${METHODS}) (/[^\`\\s]*)`, 'g');
  return new Set(
    [...markdown.matchAll(mention)].map(([, method, path]) => normalize(method ?? '', path ?? '')),
  );
}

/** The section of api.md that starts at the anchor `id`, up to the next anchor. */
function section(markdown: string, id: string): string {
  const start = markdown.indexOf(`<a id="${id}"></a>`);
  if (start === -1) throw new Error(`docs/api.md has no anchor ${id}`);
  const end = markdown.indexOf('<a id="', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/** The parsed ```json blocks of a piece of markdown. */
function jsonBlocks(markdown: string): unknown[] {
  return [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map(([, text]) =>
    JSON.parse(text ?? ''),
  );
}

type Shape = string | Shape[] | { [key: string]: Shape };

/**
 * The key structure of a JSON value: objects keep their keys in order with each value's shape,
 * arrays the shape of each element, anything else its JSON type.
 */
function shapeOf(value: unknown): Shape {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]));
  }
  return value === null ? 'null' : typeof value;
}

/** Ordered key paths (`data.failed`), so a difference names the key. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    return [path, ...keyPaths(inner, path)];
  });
}

describe('docs/api.md routes against the served OpenAPI document', () => {
  let h: Harness;
  let served: Set<string>;

  beforeAll(async () => {
    h = await createHarness();
    const response = await h.call({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { paths: Record<string, Record<string, unknown>> };
    served = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => normalize(method, path)),
      ),
    );
  });
  afterAll(() => h.close());

  it('reads a credible number of routes on both sides', () => {
    expect(served.size).toBeGreaterThanOrEqual(40);
    expect(tableRoutes(API_MD).size).toBeGreaterThanOrEqual(40);
  });

  it('every served route is in a routes table of api.md', () => {
    const documented = tableRoutes(API_MD);
    expect([...served].filter((route) => !documented.has(route)).sort()).toEqual([]);
  });

  it('every route in a table of api.md is served (or a listed exception)', () => {
    const unserved = [...tableRoutes(API_MD)].filter(
      (route) => !served.has(route) && !DOCUMENTED_NOT_IN_OPENAPI.has(route),
    );
    expect(unserved.sort()).toEqual([]);
  });

  it('every route api.md mentions anywhere is served (or a listed exception)', () => {
    const unserved = [...mentionedRoutes(API_MD)].filter(
      (route) => !served.has(route) && !DOCUMENTED_NOT_IN_OPENAPI.has(route),
    );
    expect(unserved.sort()).toEqual([]);
  });

  it('each exception is still documented and still left out of the OpenAPI document', () => {
    for (const route of DOCUMENTED_NOT_IN_OPENAPI.keys()) {
      expect(tableRoutes(API_MD).has(route), route).toBe(true);
      expect(served.has(route), route).toBe(false);
    }
  });
});

describe('docs/api.md webhook payload examples against what the service sends', () => {
  const POST_EVENTS = ['post.published', 'post.partial', 'post.failed'] as const;
  type Example = { event: string; data: Record<string, number> };
  const examples = jsonBlocks(section(API_MD, 'webhook-payload')).filter(
    (block): block is Example =>
      typeof block === 'object' &&
      block !== null &&
      POST_EVENTS.includes((block as { event?: unknown }).event as never),
  );
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  /**
   * The payload stored (and sent, byte for byte) for a post with the example's counts: one
   * target per published or failed count, the failed ones scripted to fail for good.
   */
  async function payloadFor(example: Example): Promise<unknown> {
    const { deps, alice } = h;
    const outcomes = [
      ...Array<boolean>(example.data.published ?? 0).fill(true),
      ...Array<boolean>(example.data.failed ?? 0).fill(false),
    ];
    expect(outcomes.length).toBe(example.data.total);
    // Sandbox-free connections of distinct platforms whose rules take a text-only post.
    const platforms = ['twitter', 'linkedin', 'facebook', 'threads', 'bluesky'] as const;
    const connections = [];
    for (const [index, ok] of outcomes.entries()) {
      const platform = platforms[index];
      if (!platform) throw new Error('an example with more targets than this test has platforms');
      if (!ok) deps.platforms.publisher(platform).script(failedOutcome('refused', 'no', false));
      connections.push(await seedConnection(deps, alice.user.id, platform));
    }
    const post = await createPost(
      deps,
      alice.ctx,
      { content: 'drift', social_account_ids: connections.map((c) => c.id) },
      'now',
    );
    if (!post.ok) throw new Error(JSON.stringify(post.error));
    const signal = new AbortController().signal;
    await processPublishJob(deps, post.value.id, { attempt: 1, maxAttempts: 5, waits: 0, signal });
    const delivery = [...deps.store.tables.deliveries.values()].find(
      (candidate) => candidate.postId === post.value.id,
    );
    if (!delivery) throw new Error(`no delivery for the ${example.event} example's post`);
    expect(delivery.event).toBe(example.event);
    return JSON.parse(delivery.payload);
  }

  it('has one example per post event', () => {
    expect(examples.map((example) => example.event).sort()).toEqual([...POST_EVENTS].sort());
  });

  it.each(POST_EVENTS)('the %s example has exactly the keys the service sends', async (event) => {
    const example = examples.find((candidate) => candidate.event === event);
    if (!example) throw new Error(`docs/api.md has no ${event} example`);
    const hook = await createWebhook(h.deps, h.alice.ctx, {
      url: 'https://hooks.example.com/drift',
      events: [event],
    });
    expect(hook.ok).toBe(true);
    const sent = await payloadFor(example);
    expect(keyPaths(example)).toEqual(keyPaths(sent));
    expect(shapeOf(example)).toEqual(shapeOf(sent));
  });
});

describe('docs/api.md post.metrics_updated example against what the read pass sends', () => {
  const EVENT = 'post.metrics_updated';
  type Example = { event: string; data: { targets: Array<{ metrics: Record<string, unknown> }> } };
  const example = jsonBlocks(section(API_MD, 'webhook-payload')).find(
    (block): block is Example => (block as { event?: unknown } | null)?.event === EVENT,
  );
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('has exactly the keys, in order and with the JSON types, of the payload sent', async () => {
    if (!example) throw new Error(`docs/api.md has no ${EVENT} example`);
    const { deps, alice } = h;
    // The platform reports what the example shows a number for: its nulls stay null.
    const shown = example.data.targets[0]?.metrics ?? {};
    const reports = METRIC_NAMES.filter((name: MetricName) => shown[name] !== null);
    deps.platforms.setMetricsReader('twitter', {
      batchSize: 1,
      reports,
      scopes: [],
      read: async () => ({ kind: 'failed', code: 'unused', message: 'sandbox posts are not read' }),
    });
    const hook = await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/drift',
      events: [EVENT],
    });
    expect(hook.ok).toBe(true);
    const connection = await seedConnection(deps, alice.user.id, 'twitter', { sandbox: true });
    const post = await createPost(
      deps,
      alice.ctx,
      { content: 'drift', social_account_ids: [connection.id] },
      'now',
    );
    if (!post.ok) throw new Error(JSON.stringify(post.error));
    const signal = new AbortController().signal;
    await processPublishJob(deps, post.value.id, { attempt: 1, maxAttempts: 5, waits: 0, signal });
    deps.clock.advance(2 * 3_600_000);
    await readDueMetrics(deps, signal);
    const delivery = [...deps.store.tables.deliveries.values()].find(
      (candidate) => candidate.event === EVENT,
    );
    if (!delivery) throw new Error(`the read pass sent no ${EVENT}`);
    const sent = JSON.parse(delivery.payload);
    expect(keyPaths(example)).toEqual(keyPaths(sent));
    expect(shapeOf(example)).toEqual(shapeOf(sent));
  });
});

/**
 * A team requiring approval where a member's two posts wait: one approved, one rejected. The
 * team's webhook takes the approval events (alice's personal one the others).
 */
async function approvalScenario(h: Harness): Promise<void> {
  const { deps, alice, bob } = h;
  const team = await seedWorkspace(deps, alice);
  const set = await addMember(deps, alice.actor, team.account.id, {
    userId: bob.user.id,
    role: 'member',
  });
  if (!set.ok) throw new Error(JSON.stringify(set.error));
  await updateWorkspace(deps, alice.actor, team.account.id, { approvalRequired: true });
  const hook = await createWebhook(deps, team.ctx, {
    url: 'https://hooks.example.com/approval',
    events: ['post.approval_requested', 'post.approved', 'post.rejected'],
  });
  if (!hook.ok) throw new Error(JSON.stringify(hook.error));
  const connection = await seedConnection(deps, team.account.id, 'twitter', { sandbox: true });
  const bobCtx = {
    accountId: team.account.id,
    userId: bob.user.id,
    role: 'member' as const,
    apiKeyId: null,
  };
  const body = { content: 'for review', social_account_ids: [connection.id] };
  for (const decide of ['approve', 'reject'] as const) {
    const post = await createPost(deps, bobCtx, body, 'now');
    if (!post.ok) throw new Error(JSON.stringify(post.error));
    const decided =
      decide === 'approve'
        ? await approvePost(deps, alice.actor, post.value.id)
        : await rejectPost(deps, alice.actor, post.value.id, { reason: 'off-brand' });
    if (!decided.ok) throw new Error(JSON.stringify(decided.error));
  }
}
describe('docs/api.md comment.received example against what the comments read pass sends', () => {
  const EVENT = 'comment.received';
  const example = jsonBlocks(section(API_MD, 'webhook-payload')).find(
    (block) => (block as { event?: unknown } | null)?.event === EVENT,
  );
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('has exactly the keys, in order and with the JSON types, of the payload sent', async () => {
    if (!example) throw new Error(`docs/api.md has no ${EVENT} example`);
    const { deps, alice } = h;
    deps.platforms.setCommentsClient('twitter', {
      replyMaxLength: () => 280,
      can: () => ({ reply: true, hide: false, delete: false }),
      list: async () => ({
        kind: 'listed',
        comments: [
          {
            platformCommentId: 'c-1',
            parentPlatformId: null,
            author: { id: 'u-1', name: 'A viewer', handle: null },
            text: 'Nice',
            createdAt: new Date('2030-01-31T10:59:40.000Z'),
            hidden: false,
            mine: false,
          },
        ],
      }),
      reply: async () => ({ kind: 'gone', message: 'unused' }),
      findReply: async () => ({ kind: 'not_found' }),
    });
    const hook = await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/drift-comments',
      events: [EVENT],
    });
    expect(hook.ok).toBe(true);
    const connection = await seedConnection(deps, alice.user.id, 'twitter');
    const post = await createPost(
      deps,
      alice.ctx,
      { content: 'drift', social_account_ids: [connection.id] },
      'now',
    );
    if (!post.ok) throw new Error(JSON.stringify(post.error));
    const signal = new AbortController().signal;
    await processPublishJob(deps, post.value.id, { attempt: 1, maxAttempts: 5, waits: 0, signal });
    deps.clock.advance(3_600_000);
    await readDueComments(deps, signal);
    const delivery = [...deps.store.tables.deliveries.values()].find(
      (candidate) => candidate.event === EVENT,
    );
    if (!delivery) throw new Error(`the read pass sent no ${EVENT}`);
    const sent = JSON.parse(delivery.payload);
    expect(keyPaths(example)).toEqual(keyPaths(sent));
    expect(shapeOf(example)).toEqual(shapeOf(sent));
  });
});

describe('docs/api.md event catalogue against the deliveries and the OpenAPI webhooks section', () => {
  type Example = { event: string; data: Record<string, unknown> };
  const examples = jsonBlocks(section(API_MD, 'webhook-payload')) as Example[];
  const exampleOf = (event: string) => {
    const example = examples.find((candidate) => candidate.event === event);
    if (!example) throw new Error(`docs/api.md has no ${event} example`);
    return example;
  };
  /** Events sent today whose example is compared here (the SPEC three and metrics above). */
  const SENT = [
    'post.created',
    'post.updated',
    'post.cancelled',
    'post.target.published',
    'post.target.failed',
    'post.approval_requested',
    'post.approved',
    'post.rejected',
    'post.unpublished',
    'social_account.connected',
    'social_account.expired',
    'social_account.disconnected',
  ] as const;
  let h: Harness;
  const sent = new Map<string, unknown>();

  beforeAll(async () => {
    h = await createHarness();
    const { deps, alice } = h;
    const hook = await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/catalogue',
      events: [...SENT],
    });
    expect(hook.ok).toBe(true);
    // Every cause, through the use cases the routes call.
    const connected = await connectSocialAccount(deps, alice.ctx, {
      platform: 'twitter',
      externalId: 'drift-1',
      accessToken: 'token',
      displayName: 'Drift',
    });
    if (!connected.ok) throw new Error(JSON.stringify(connected.error));
    const failing = await seedConnection(deps, alice.user.id, 'linkedin');
    deps.platforms.publisher('linkedin').script(failedOutcome('refused', 'no', false));
    const content = { content: 'drift', social_account_ids: [connected.value.id, failing.id] };
    const scheduled = await createPost(
      deps,
      alice.ctx,
      { ...content, scheduled_at: '2030-01-31T09:30:00.000Z' },
      'scheduled',
    );
    if (!scheduled.ok) throw new Error(JSON.stringify(scheduled.error));
    await editPost(deps, alice.actor, scheduled.value.id, { content: 'edited' });
    await cancelPost(deps, alice.actor, scheduled.value.id);
    const now = await createPost(deps, alice.ctx, content, 'now');
    if (!now.ok) throw new Error(JSON.stringify(now.error));
    const signal = new AbortController().signal;
    await processPublishJob(deps, now.value.id, { attempt: 1, maxAttempts: 5, waits: 0, signal });
    await approvalScenario(h);
    // No remover in the harness: the published target is unsupported, the event sent at once.
    await unpublishPost(deps, alice.actor, now.value.id, {});
    await expireConnection(deps, failing, 'the platform refused the token');
    await deleteSocialAccount(deps, alice.actor, connected.value.id);
    for (const delivery of deps.store.tables.deliveries.values()) {
      if (!sent.has(delivery.event)) sent.set(delivery.event, JSON.parse(delivery.payload));
    }
  });
  afterAll(() => h.close());

  it('has one example per event of the catalogue, in its order', () => {
    const named = examples.map((example) => example.event).filter((event) => event !== undefined);
    expect([...new Set(named)].sort()).toEqual([...WEBHOOK_EVENTS].sort());
    expect(named).toHaveLength(WEBHOOK_EVENTS.length);
  });

  /** Lists cut to their first item: an example shows one target where a post may have more. */
  const firstItems = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.slice(0, 1).map(firstItems)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, firstItems(inner)]))
        : value;

  it.each(SENT)('the %s example has exactly the keys of the delivery sent', (event) => {
    const delivery = sent.get(event);
    if (!delivery) throw new Error(`the scenario sent no ${event}`);
    expect(keyPaths(exampleOf(event))).toEqual(keyPaths(firstItems(delivery)));
  });

  it.each([...WEBHOOK_EVENTS])(
    'the %s example has the keys of its OpenAPI payload',
    async (event) => {
      const response = await h.call({ method: 'GET', url: '/openapi.json' });
      const document = response.json() as {
        webhooks: Record<
          string,
          { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
        >;
        components: {
          schemas: Record<string, { properties: Record<string, { properties?: object }> }>;
        };
      };
      const ref =
        document.webhooks[event]?.post.requestBody.content['application/json']?.schema.$ref;
      const schema = document.components.schemas[String(ref?.split('/').pop())];
      if (!schema) throw new Error(`the OpenAPI document describes no ${event} payload`);
      const example = exampleOf(event);
      expect(Object.keys(example)).toEqual(Object.keys(schema.properties));
      expect(Object.keys(example.data)).toEqual(
        Object.keys(schema.properties.data?.properties ?? {}),
      );
    },
  );
});
