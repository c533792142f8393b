/**
 * Tracing end to end, production mode, with the real entry points as processes (`start:api`,
 * `start:worker`) pointed at an OTLP receiver on 127.0.0.1: the API exports http/json, the
 * worker http/protobuf (the default). A post created with a client's `traceparent` is one
 * trace from the API's server span to the enqueue, the worker's job, the platforms' calls, the
 * webhook delivery and the database; and nothing secret (the post's content, the platforms'
 * tokens, the webhook's secret, the API key) appears anywhere in what was exported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
const CLIENT_TRACE_ID = randomBytes(16).toString('hex');
const CLIENT_SPAN_ID = randomBytes(8).toString('hex');

interface Running {
  child: ChildProcess;
  output: { text: string };
}

function start(script: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [script, ...args], { env });
  const output = { text: '' };
  child.stdout?.on('data', (chunk) => {
    output.text += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output.text += chunk;
  });
  return { child, output };
}

async function stop({ child }: Running): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

describe.skipIf(check.skipReason)(
  `tracing from the request to the platforms, production mode${skippedNote(check.skipReason)}`,
  { timeout: 90_000 },
  () => {
    let otlp: OtlpReceiver;
    let x: FakeX;
    let facebook: FakeFacebook;
    let hooks: Receiver;
    let api: Running;
    let worker: Running;
    let baseUrl = '';
    const prefix = uniquePrefix('tracing');
    let webhookSecret = '';
    let postId = '';

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

    beforeAll(async () => {
      [otlp, x, facebook, hooks] = await Promise.all([
        startOtlpReceiver(),
        startFakeX(),
        startFakeFacebook(),
        startReceiver(),
      ]);
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: check.database.url ?? '',
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        BOOTSTRAP_API_KEY: MARKERS.apiKey,
        WORKER_PROCESSES: '1',
        RECONCILE_INTERVAL_MS: '300',
        PLATFORM_POLL_INTERVAL_MS: '50',
        X_RATE_LIMIT: 'off',
        ...oauthEnv('X', x.baseUrl, x.oauth.options),
        ...oauthEnv('FACEBOOK', facebook.baseUrl, facebook.oauth.options),
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.baseUrl,
      };
      api = start(API_MAIN, ['--api-only'], { ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
      worker = start(WORKER_MAIN, [], env);
      const listening = await waitFor(
        'the API to listen',
        () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(api.output.text)?.[1],
        30_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\nAPI: ${api.output.text}\nworker: ${worker.output.text}`);
      });
      baseUrl = listening;
    }, 60_000);

    afterAll(async () => {
      await Promise.allSettled([api && stop(api), worker && stop(worker)]);
      await Promise.allSettled([otlp?.close(), x?.close(), facebook?.close(), hooks?.close()]);
      await deleteKeys(prefix);
      await check.database.drop();
    }, 60_000);

    it('a post is one trace: server span, enqueue, job, platform calls, webhook delivery, database; nothing secret exported', async () => {
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
      webhookSecret = hook.body.data.secret;
      hooks.register('/traced', webhookSecret);

      const created = await call<{ data: { id: string } }>(
        'POST',
        '/posts',
        { content: MARKERS.content, social_account_ids: accounts },
        { traceparent: `00-${CLIENT_TRACE_ID}-${CLIENT_SPAN_ID}-01` },
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      postId = created.body.data.id;
      await waitFor(
        'the post to be published and its webhook delivered',
        async () => {
          const got = await call<{ data: { status: string } }>('GET', `/posts/${postId}`);
          return got.body.data.status === 'published' && hooks.arrivalsFor(postId).length > 0;
        },
        30_000,
      );
      // Stopping flushes what each process still batches.
      await Promise.all([stop(api), stop(worker)]);

      const spans = otlp.spans();
      const trace = spans.filter((span) => span.traceId === CLIENT_TRACE_ID);
      const describe = (list: ReceivedSpan[]) =>
        list.map((span) => `${span.resource['service.name']}: ${span.name}`).join('\n');
      const find = (what: string, match: (span: ReceivedSpan) => boolean) => {
        const found = trace.find(match);
        expect(found, `${what} in the trace:\n${describe(trace)}`).toBeDefined();
        return found as ReceivedSpan;
      };
      const service = (span: ReceivedSpan) => span.resource['service.name'];

      const server = find('the server span', (span) => span.name === 'POST /posts');
      expect(server.kind).toBe(SPAN_KIND.server);
      expect(server.parentSpanId).toBe(CLIENT_SPAN_ID);
      expect(server.attributes['http.route']).toBe('/posts');
      expect(server.attributes['http.response.status_code']).toBe(201);
      expect(service(server)).toBe('social-publisher-api');
      expect(server.format).toBe('json');

      const enqueue = find('the enqueue', (span) => span.name === 'send publish');
      expect(enqueue.kind).toBe(SPAN_KIND.producer);
      expect(service(enqueue)).toBe('social-publisher-api');

      const job = find('the job', (span) => span.name === 'process publish');
      expect(job.kind).toBe(SPAN_KIND.consumer);
      expect(job.parentSpanId).toBe(enqueue.spanId);
      expect(service(job)).toBe('social-publisher-worker');
      expect(job.format).toBe('protobuf');

      const port = (url: string) => Number(new URL(url).port);
      const clientTo = (what: string, url: string) =>
        find(
          what,
          (span) => span.kind === SPAN_KIND.client && span.attributes['server.port'] === port(url),
        );
      const tweet = clientTo('the X call', x.baseUrl);
      expect(tweet.name).toMatch(/^POST \/2\/tweets$/);
      clientTo('the Facebook call', facebook.baseUrl);
      const delivery = clientTo('the webhook delivery', hooks.url('/traced'));
      expect(delivery.name).toBe('POST /traced');
      expect(service(delivery)).toBe('social-publisher-worker');

      const database = trace.filter((span) => span.attributes['db.system.name'] === 'postgresql');
      expect(new Set(database.map(service))).toEqual(
        new Set(['social-publisher-api', 'social-publisher-worker']),
      );

      // Names are route templates: no post id in any span of any trace (GET /posts/:id too).
      expect(spans.some((span) => span.name === 'GET /posts/:id')).toBe(true);
      expect(spans.filter((span) => span.name.includes(postId))).toEqual([]);

      // Log lines inside the trace carry its id, in both processes.
      expect(api.output.text).toContain(`"trace_id":"${CLIENT_TRACE_ID}"`);
      expect(worker.output.text).toContain(`"trace_id":"${CLIENT_TRACE_ID}"`);

      // Nothing secret anywhere: every body as received, and every span as decoded.
      const everything = [
        ...otlp.exports.map((item) => item.body.toString('utf8')),
        JSON.stringify(spans),
      ].join('\n');
      for (const [name, marker] of Object.entries({ ...MARKERS, webhookSecret })) {
        expect(everything.includes(marker), `${name} in the exported spans`).toBe(false);
      }
      expect(everything.includes('MARKER-')).toBe(false);
      expect(otlp.exports.some((item) => item.contentType === 'application/x-protobuf')).toBe(true);
    });
  },
);
