/**
 * End to end through the domain: scripted publishers -> processPublishJob -> finalizePost ->
 * deliverWebhook -> THIS package's real sender over HTTP -> a local receiver that verifies
 * both signature schemes, the Standard Webhooks one with the independent `standardwebhooks`
 * npm package (not our code).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  type CoreDeps,
  type CreatedWebhook,
  createPost,
  createWebhook,
  deliverWebhook,
  type JobHandlers,
  listDeliveries,
  processPublishJob,
  processUnpublishJob,
  type SocialAccount,
  setWebhookActive,
  type WebhookEvent,
} from '@social-publisher/domain';
import {
  createTestDeps,
  failedOutcome,
  type SeededUser,
  seedConnection,
  seedUser,
  type TestDeps,
} from '@social-publisher/domain/testing';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClosableWebhookSender, createWebhookSender } from '../src/index.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from './helpers.ts';

interface Verified {
  path: string;
  event: string | undefined;
  webhookId: string | undefined;
  body: Buffer;
  payload: Record<string, unknown>;
}

/** docs/api.md#webhook-signatures: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret. */
function verifySpecSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(', ') : (value ?? ''),
    ]),
  );
}

describe('webhook delivery end to end (domain + real sender + verifying receiver)', () => {
  let receiver: Receiver;
  let sender: ClosableWebhookSender;
  let deps: TestDeps;
  let core: CoreDeps;
  let handlers: JobHandlers;
  let user: SeededUser;
  let connections: SocialAccount[];
  /** path -> webhook, so the receiver knows which secret signs what arrives there */
  const byPath = new Map<string, CreatedWebhook>();
  const verified: Verified[] = [];
  const rejected: Array<{ path: string; why: string }> = [];
  /** path -> statuses to answer, in order (then 200) */
  const scripts = new Map<string, number[]>();

  const at = (path: string) => verified.filter((entry) => entry.path === path);

  async function subscribe(path: string, events: WebhookEvent[]): Promise<CreatedWebhook> {
    const created = await createWebhook(core, user.ctx, { url: receiver.url(path), events });
    if (!created.ok) throw new Error(created.error.message);
    byPath.set(path, created.value);
    return created.value;
  }

  /** Creates an immediate post on every connection, runs every job, returns the post id. */
  async function publishAndDeliver(): Promise<string> {
    const post = await createPost(
      core,
      user.ctx,
      { content: 'hello from the e2e test', social_account_ids: connections.map((c) => c.id) },
      'now',
    );
    if (!post.ok) throw new Error(post.error.message);
    await deps.queue.drain(handlers);
    return post.value.id;
  }

  function verify(req: ReceivedRequest): number {
    const webhook = byPath.get(req.path);
    if (!webhook) {
      rejected.push({ path: req.path, why: 'unknown path' });
      return 404;
    }
    const headers = plainHeaders(req.headers);
    if (!verifySpecSignature(webhook.secret, req.body, headers['x-social-publisher-signature'])) {
      rejected.push({ path: req.path, why: 'bad X-Social-Publisher-Signature' });
      return 401;
    }
    try {
      // The independent verifier: signature, and the timestamp within its 5-minute window.
      new StandardWebhook(webhook.secret).verify(req.body.toString('utf8'), headers);
    } catch (error) {
      rejected.push({ path: req.path, why: `standardwebhooks: ${String(error)}` });
      return 401;
    }
    verified.push({
      path: req.path,
      event: headers['x-social-publisher-event'],
      webhookId: headers['webhook-id'],
      body: req.body,
      payload: JSON.parse(req.body.toString('utf8')) as Record<string, unknown>,
    });
    return scripts.get(req.path)?.shift() ?? 200;
  }

  beforeAll(async () => {
    receiver = await startReceiver((req, res) => {
      const status = verify(req);
      if (status >= 300 && status < 400)
        res.setHeader('Location', receiver.url('/redirect-target'));
      res.statusCode = status;
      res.end();
    });
    sender = createWebhookSender({ allowHttp: true, allowPrivateNetworks: true, timeoutMs: 5_000 });
    // Real time on the fake clock: Standard Webhooks verifiers refuse timestamps outside
    // 5 minutes of now. Short retry delays keep the fake clock close to it.
    deps = createTestDeps({
      now: new Date(),
      settings: {
        webhookAllowHttp: true,
        webhookAllowPrivateNetworks: true,
        deliveryRetryScheduleMs: [20, 20, 20],
      },
    });
    core = { ...deps, webhookSender: sender };
    handlers = {
      publish: (postId, ctx) => processPublishJob(core, postId, ctx),
      deliver: (deliveryId, ctx) => deliverWebhook(core, deliveryId, ctx),
      unpublish: (postId, ctx) => processUnpublishJob(core, postId, ctx),
    };
    user = await seedUser(core, 'e2e@example.com');
    connections = [
      await seedConnection(core, user.user.id, 'twitter'),
      await seedConnection(core, user.user.id, 'linkedin'),
    ];
    await subscribe('/published', ['post.published']);
    await subscribe('/failed', ['post.failed']);
    await subscribe('/partial', ['post.partial']);
    await subscribe('/all', ['post.published', 'post.failed', 'post.partial']);
    const inactive = await subscribe('/inactive', [
      'post.published',
      'post.failed',
      'post.partial',
    ]);
    const disabled = await setWebhookActive(core, user.actor, inactive.id, false);
    expect(disabled.ok).toBe(true);
  });

  afterAll(async () => {
    await sender.close();
    await receiver.close();
  });

  beforeEach(() => {
    verified.length = 0;
  });

  it('post.published reaches only its subscribers, signed both ways, the stored bytes', async () => {
    const postId = await publishAndDeliver();
    expect(rejected).toEqual([]);
    expect(verified.map((entry) => entry.path).sort()).toEqual(['/all', '/published']);
    for (const entry of verified) {
      expect(entry.event).toBe('post.published');
      expect(entry.payload).toMatchObject({
        event: 'post.published',
        account_id: user.user.id,
        post_id: postId,
        data: { published: 2, failed: 0, total: 2 },
      });
      expect(typeof entry.payload.timestamp).toBe('string');
    }
    // the bytes received are the bytes stored (and signed)
    const listed = await listDeliveries(core, user.actor, byPath.get('/published')?.id ?? '');
    if (!listed.ok) throw new Error(listed.error.message);
    const [delivery] = listed.value;
    expect(delivery?.status).toBe('delivered');
    expect(at('/published')[0]?.body.toString('utf8')).toBe(delivery?.payload);
    expect(at('/published')[0]?.webhookId).toBe(delivery?.id);
  });

  it("the receiver's checks are real: a tampered body or a replayed old timestamp is refused", () => {
    const original = receiver.requests.find((req) => req.path === '/published');
    if (!original) throw new Error('no request captured');
    const tampered = Buffer.from(original.body);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 2) ^ 1, tampered.length - 2);
    expect(verify({ ...original, body: tampered })).toBe(401);
    expect(rejected.pop()?.why).toBe('bad X-Social-Publisher-Signature');

    const secret = byPath.get('/published')?.secret ?? '';
    const headers = plainHeaders(original.headers);
    const stale = String(Number(headers['webhook-timestamp']) - 600);
    expect(() =>
      new StandardWebhook(secret).verify(original.body.toString('utf8'), {
        ...headers,
        'webhook-timestamp': stale,
      }),
    ).toThrow(/timestamp too old/i);
    expect(() => new StandardWebhook(secret).verify(tampered.toString('utf8'), headers)).toThrow(
      /no matching signature/i,
    );
  });

  it('post.failed reaches only its subscribers, with only failed and total', async () => {
    deps.platforms
      .publisher('twitter')
      .script(failedOutcome('policy_violation', 'not allowed', false));
    deps.platforms
      .publisher('linkedin')
      .script(failedOutcome('invalid_token', 'token revoked', false));
    await publishAndDeliver();
    expect(rejected).toEqual([]);
    expect(verified.map((entry) => entry.path).sort()).toEqual(['/all', '/failed']);
    for (const entry of verified) {
      expect(entry.event).toBe('post.failed');
      // The contract's fields only: failed and total (the reasons are in GET /posts/:id).
      expect(entry.payload.data).toEqual({ failed: 2, total: 2 });
      expect(entry.payload.data).not.toHaveProperty('published');
    }
  });

  it('post.partial reaches only its subscribers', async () => {
    deps.platforms.publisher('linkedin').script(failedOutcome('invalid_media', 'bad media', false));
    await publishAndDeliver();
    expect(rejected).toEqual([]);
    expect(verified.map((entry) => entry.path).sort()).toEqual(['/all', '/partial']);
    for (const entry of verified) {
      expect(entry.event).toBe('post.partial');
      expect(entry.payload.data).toEqual({ published: 1, failed: 1, total: 2 });
    }
  });

  it('the inactive webhook got nothing and has no deliveries', async () => {
    expect(receiver.requests.filter((req) => req.path === '/inactive')).toEqual([]);
    const listed = await listDeliveries(core, user.actor, byPath.get('/inactive')?.id ?? '');
    expect(listed.ok && listed.value).toEqual([]);
  });

  it('a receiver that fails twice then succeeds gets the same webhook-id three times; three attempts logged', async () => {
    const flaky = await subscribe('/flaky', ['post.published']);
    scripts.set('/flaky', [500, 503]);
    await publishAndDeliver();
    expect(rejected).toEqual([]);
    const arrivals = at('/flaky');
    expect(arrivals).toHaveLength(3);
    const ids = new Set(arrivals.map((entry) => entry.webhookId));
    expect(ids.size).toBe(1);
    // same bytes every time
    expect(new Set(arrivals.map((entry) => entry.body.toString('hex'))).size).toBe(1);

    const listed = await listDeliveries(core, user.actor, flaky.id);
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value).toHaveLength(1);
    const [delivery] = listed.value;
    expect(delivery?.id).toBe([...ids][0]);
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts).toBe(3);
    expect(delivery?.attemptLog.map((attempt) => attempt.statusCode)).toEqual([500, 503, 200]);
    expect(delivery?.attemptLog.map((attempt) => attempt.attemptNo)).toEqual([1, 2, 3]);
    expect(delivery?.attemptLog[0]?.error).toBe('HTTP 500 Internal Server Error');
    expect(delivery?.attemptLog[2]?.error).toBeNull();
    await setWebhookActive(core, user.actor, flaky.id, false);
  });

  it('a 3xx is not followed: the redirect target gets nothing, the delivery fails after the schedule', async () => {
    const redirecting = await subscribe('/redirect', ['post.published']);
    scripts.set('/redirect', [302, 302, 302, 302]);
    await publishAndDeliver();
    expect(at('/redirect')).toHaveLength(4); // 1 + 3 retries of the schedule
    expect(receiver.requests.filter((req) => req.path === '/redirect-target')).toEqual([]);

    const listed = await listDeliveries(core, user.actor, redirecting.id);
    if (!listed.ok) throw new Error(listed.error.message);
    const [delivery] = listed.value;
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attemptLog).toHaveLength(4);
    expect(delivery?.attemptLog[0]).toMatchObject({
      statusCode: 302,
      error: `redirect not followed: HTTP 302 to ${receiver.url('/redirect-target')}`,
    });
  });
});
