/**
 * Tracing end to end, with the real entry points as processes pointed at an OTLP receiver on
 * 127.0.0.1. Production mode (`start:api` + `start:worker`, PostgreSQL and BullMQ): the API
 * exports http/json, the worker http/protobuf (the default). A post created with a client's
 * `traceparent` is one trace from the API's server span to the enqueue, the worker's job, the
 * platforms' calls, the webhook delivery and the database. The embedded mode (`pnpm start`, the
 * in-process queue) makes the same trace in one process. And nothing secret (the post's
 * content, the platforms' tokens, the webhook's secret, the API key) appears anywhere in what
 * was exported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeFacebook,
  type FakeX,
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startFakeFacebook,
  startFakeX,
  startOtlpReceiver,
} from '../../testkit/src/index.ts';
import { type Receiver, startReceiver } from './e2e/receiver.ts';
import { deleteKeys, oauthEnv, REDIS_URL, uniquePrefix, waitFor } from './e2e/system.ts';
import { productionCheck, skippedNote } from './e2e/use-system.ts';

const API_MAIN = new URL('../src/main.ts', import.meta.url).pathname;
const WORKER_MAIN = new URL('../../app-worker/src/main.ts', import.meta.url).pathname;

const check = await productionCheck();
const unique = randomBytes(6).toString('hex');
const MARKERS = {
  content: `Launch notes MARKER-CONTENT-${unique}`,
  xToken: `MARKER-X-TOKEN-${unique}`,
  facebookToken: `MARKER-FB-TOKEN-${unique}`,
  apiKey: `sp_${randomBytes(20).toString('hex')}`,
};

interface Running {
  child: ChildProcess;
  output: { text: string };
}

function start(script: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [script, ...args], { env });
  const output = { text: '' };
  const collect = (chunk: Buffer) => {
    output.text += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output };
}

async function stop({ child }: Running): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** The fakes and receivers one system talks to. */
interface Outside {
  otlp: OtlpReceiver;
  x: FakeX;
  facebook: FakeFacebook;
  hooks: Receiver;
}

const startOutside = async (): Promise<Outside> => {
  const [otlp, x, facebook, hooks] = await Promise.all([
    startOtlpReceiver(),
    startFakeX(),
    startFakeFacebook(),
    startReceiver(),
  ]);
  return { otlp, x, facebook, hooks };
};

const closeOutside = (outside: Outside | undefined) =>
  Promise.allSettled([
    outside?.otlp.close(),
    outside?.x.close(),
    outside?.facebook.close(),
    outside?.hooks.close(),
  ]);

/** What every process of a system gets: a clean environment, the fakes, the OTLP endpoint. */
const baseEnv = ({ otlp, x, facebook }: Outside): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  PORT: '0',
  BOOTSTRAP_API_KEY: MARKERS.apiKey,
  RECONCILE_INTERVAL_MS: '300',
  PLATFORM_POLL_INTERVAL_MS: '50',
  X_RATE_LIMIT: 'off',
  ...oauthEnv('X', x.baseUrl, x.oauth.options),
  ...oauthEnv('FACEBOOK', facebook.baseUrl, facebook.oauth.options),
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.baseUrl,
});

/** The API's address, once its `listening` line is out. */
async function listeningUrl(api: Running, other?: Running): Promise<string> {
  return waitFor(
    'the API to listen',
    () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(api.output.text)?.[1],
    30_000,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\nAPI: ${api.output.text}\nother: ${other?.output.text}`);
  });
}

/**
 * Connects X and Facebook with marker tokens, subscribes a webhook, creates a post with a
 * client's traceparent and waits until it is published and its webhook delivered.
 */
async function publishTraced(baseUrl: string, { x, facebook, hooks }: Outside) {
  const call = async <T>(method: string, path: string, body?: unknown, headers = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${MARKERS.apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const accounts: string[] = [];
  for (const connection of [
    { platform: 'twitter', external_id: x.user.id, access_token: MARKERS.xToken },
    {
      platform: 'facebook',
      external_id: facebook.pages[0]?.id ?? '',
      access_token: MARKERS.facebookToken,
    },
  ]) {
    const created = await call<{ data: { id: string } }>('POST', '/social-accounts', {
      ...connection,
      display_name: `${connection.platform} tracing`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    accounts.push(created.body.data.id);
  }
  const hook = await call<{ data: { secret: string } }>('POST', '/webhooks', {
    url: hooks.url('/traced'),
    events: ['post.published'],
  });
  expect(hook.status).toBe(201);
  const webhookSecret = hook.body.data.secret;
  hooks.register('/traced', webhookSecret);

  const client = {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
  };
  const created = await call<{ data: { id: string } }>(
    'POST',
    '/posts',
    { content: MARKERS.content, social_account_ids: accounts },
    { traceparent: `00-${client.traceId}-${client.spanId}-01` },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const postId = created.body.data.id;
  await waitFor(
    'the post to be published and its webhook delivered',
    async () => {
      const got = await call<{ data: { status: string } }>('GET', `/posts/${postId}`);
      return got.body.data.status === 'published' && hooks.arrivalsFor(postId).length > 0;
    },
    30_000,
  );
  return { postId, webhookSecret, client };
}

/** The spans of one trace, and a finder that names what it looked for when it fails. */
function traceOf(otlp: OtlpReceiver, traceId: string) {
  const spans = otlp.spans().filter((span) => span.traceId === traceId);
  const listing = spans.map((span) => `${span.resource['service.name']}: ${span.name}`).join('\n');
  const find = (what: string, match: (span: ReceivedSpan) => boolean): ReceivedSpan => {
    const found = spans.find(match);
    expect(found, `${what} in the trace:\n${listing}`).toBeDefined();
    return found as ReceivedSpan;
  };
  const clientTo = (what: string, url: string) =>
    find(
      what,
      (span) =>
        span.kind === SPAN_KIND.client &&
        span.attributes['server.port'] === Number(new URL(url).port),
    );
  return { spans, find, clientTo };
}

const serviceOf = (span: ReceivedSpan) => span.resource['service.name'];

/** No marker in any byte received nor in any span decoded. */
function expectNothingSecret(otlp: OtlpReceiver, webhookSecret: string): void {
  const everything = [
    ...otlp.exports.map((item) => item.body.toString('utf8')),
    JSON.stringify(otlp.spans()),
  ].join('\n');
  for (const [name, marker] of Object.entries({ ...MARKERS, webhookSecret })) {
    expect(everything.includes(marker), `${name} in the exported spans`).toBe(false);
  }
  expect(everything.includes('MARKER-')).toBe(false);
}

describe.skipIf(check.skipReason)(
  `tracing from the request to the platforms, production mode${skippedNote(check.skipReason)}`,
  { timeout: 90_000 },
  () => {
    let outside: Outside | undefined;
    let api: Running | undefined;
    let worker: Running | undefined;
    let baseUrl = '';
    const prefix = uniquePrefix('tracing');

    beforeAll(async () => {
      outside = await startOutside();
      const env: Record<string, string> = {
        ...baseEnv(outside),
        DATABASE_URL: check.database.url ?? '',
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        WORKER_PROCESSES: '1',
      };
      api = start(API_MAIN, ['--api-only'], { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
      worker = start(WORKER_MAIN, [], env);
      baseUrl = await listeningUrl(api, worker);
    }, 60_000);

    afterAll(async () => {
      await Promise.allSettled([api && stop(api), worker && stop(worker)]);
      await closeOutside(outside);
      await deleteKeys(prefix);
      await check.database.drop();
    }, 60_000);

    it('a post is one trace: server span, enqueue, job, platform calls, webhook delivery, database; nothing secret exported', async () => {
      if (!outside || !api || !worker) throw new Error('the system did not start');
      const { otlp, x, facebook, hooks } = outside;
      const { postId, webhookSecret, client } = await publishTraced(baseUrl, outside);
      // Stopping flushes what each process still batches.
      await Promise.all([stop(api), stop(worker)]);
      const { spans, find, clientTo } = traceOf(otlp, client.traceId);

      const server = find('the server span', (span) => span.name === 'POST /posts');
      expect(server.kind).toBe(SPAN_KIND.server);
      expect(server.parentSpanId).toBe(client.spanId);
      expect(server.attributes['http.route']).toBe('/posts');
      expect(server.attributes['http.response.status_code']).toBe(201);
      expect(serviceOf(server)).toBe('social-publisher-api');
      expect(server.format).toBe('json');

      const enqueue = find('the enqueue', (span) => span.name === 'send publish');
      expect(enqueue.kind).toBe(SPAN_KIND.producer);
      expect(enqueue.attributes['messaging.system']).toBe('bullmq');
      expect(serviceOf(enqueue)).toBe('social-publisher-api');

      const job = find('the job', (span) => span.name === 'process publish');
      expect(job.kind).toBe(SPAN_KIND.consumer);
      expect(job.parentSpanId).toBe(enqueue.spanId);
      expect(serviceOf(job)).toBe('social-publisher-worker');
      expect(job.format).toBe('protobuf');

      expect(clientTo('the X call', x.baseUrl).name).toBe('POST /2/tweets');
      // The Page's id is templated (the token-in-the-query case is test/telemetry's).
      expect(clientTo('the Facebook call', facebook.baseUrl).name).toMatch(
        /^POST \/v[\d.]+\/\{id\}\//,
      );
      const delivery = clientTo('the webhook delivery', hooks.url('/traced'));
      expect(delivery.name).toBe('POST /traced');
      expect(serviceOf(delivery)).toBe('social-publisher-worker');

      const database = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
      expect(new Set(database.map(serviceOf))).toEqual(
        new Set(['social-publisher-api', 'social-publisher-worker']),
      );

      // Names are route templates: no post id in any span of any trace (GET /posts/:id too).
      const all = otlp.spans();
      expect(all.some((span) => span.name === 'GET /posts/:id')).toBe(true);
      expect(all.filter((span) => span.name.includes(postId))).toEqual([]);

      // Log lines inside the trace carry its id, in both processes.
      expect(api.output.text).toContain(`"trace_id":"${client.traceId}"`);
      expect(worker.output.text).toContain(`"trace_id":"${client.traceId}"`);

      expectNothingSecret(otlp, webhookSecret);
      expect(otlp.exports.some((item) => item.contentType === 'application/x-protobuf')).toBe(true);
    });
  },
);

describe('tracing in the embedded mode (API and worker in one process)', {
  timeout: 90_000,
}, () => {
  let outside: Outside | undefined;
  let embedded: Running | undefined;
  let baseUrl = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-tracing-'));

  beforeAll(async () => {
    outside = await startOutside();
    embedded = start(API_MAIN, [], {
      ...baseEnv(outside),
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    baseUrl = await listeningUrl(embedded);
  }, 60_000);

  afterAll(async () => {
    if (embedded) await stop(embedded);
    await closeOutside(outside);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('the in-process queue carries the trace from the request to the platforms; one service name', async () => {
    if (!outside || !embedded) throw new Error('the system did not start');
    const { otlp, x, hooks } = outside;
    const { webhookSecret, client } = await publishTraced(baseUrl, outside);
    await stop(embedded);
    const { spans, find, clientTo } = traceOf(otlp, client.traceId);

    const server = find('the server span', (span) => span.name === 'POST /posts');
    expect(server.parentSpanId).toBe(client.spanId);
    const enqueue = find('the enqueue', (span) => span.name === 'send publish');
    expect(enqueue.attributes['messaging.system']).toBe('in-process');
    const job = find('the job', (span) => span.name === 'process publish');
    expect(job.parentSpanId).toBe(enqueue.spanId);
    clientTo('the X call', x.baseUrl);
    clientTo('the webhook delivery', hooks.url('/traced'));
    expect(new Set(spans.map(serviceOf))).toEqual(new Set(['social-publisher-api']));
    expect(embedded.output.text).toContain(`"trace_id":"${client.traceId}"`);
    expectNothingSecret(otlp, webhookSecret);
  });
});
