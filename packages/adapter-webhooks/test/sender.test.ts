import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClosableWebhookSender, createWebhookSender } from '../src/index.ts';
import { memoryLogger, type Receiver, startReceiver, tableResolver } from './helpers.ts';

const BODY =
  '{"event":"post.published","account_id":"a","post_id":"p","text":"h\\u00e9llo \u00e9 \u{1F30D} \u2028","n":1.50}';

const HEADERS = {
  'Content-Type': 'application/json',
  'X-Social-Publisher-Event': 'post.published',
  'X-Social-Publisher-Signature':
    'sha256=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
  'webhook-id': '01890a5d-ac96-774b-bcce-b302099a8057',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,c2lnbmF0dXJlLXRoYXQtbXVzdC1uZXZlci1iZS1sb2dnZWQ=',
};

describe('createWebhookSender against a local receiver', () => {
  let receiver: Receiver;
  let other: Receiver;
  let sender: ClosableWebhookSender;
  const logger = memoryLogger();

  beforeAll(async () => {
    receiver = await startReceiver();
    other = await startReceiver();
    sender = createWebhookSender({
      allowHttp: true,
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
      logger,
      now: () => Date.parse('2030-01-01T00:00:00Z'),
    });
  });
  afterAll(async () => {
    await sender.close();
    await Promise.all([receiver.close(), other.close()]);
  });
  afterEach(() => {
    receiver.requests.length = 0;
    other.requests.length = 0;
    receiver.setHandler((_req, res) => void res.end('ok'));
  });

  it('POSTs the body byte for byte with the given headers; 2xx is delivered', async () => {
    const result = await sender.send({
      url: receiver.url('/in?k=v'),
      body: BODY,
      headers: HEADERS,
    });
    expect(result).toEqual({
      statusCode: 200,
      error: null,
      durationMs: expect.any(Number),
      retryAfterMs: null,
      retryable: false,
    });
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received?.method).toBe('POST');
    expect(received?.path).toBe('/in?k=v');
    expect(received?.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
    expect(received?.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    for (const [name, value] of Object.entries(HEADERS)) {
      expect(received?.headers[name.toLowerCase()], name).toBe(value);
    }
    expect(received?.headers['user-agent']).toBe('SocialPublisher-Webhooks/1.0');
  });

  it.each([201, 202, 204, 299])('%i is delivered', async (status) => {
    receiver.setHandler((_req, res) => {
      res.statusCode = status;
      res.end();
    });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result.statusCode).toBe(status);
    expect(result.error).toBeNull();
  });

  it('does not let the caller override Host or Content-Length', async () => {
    await sender.send({
      url: receiver.url(),
      body: BODY,
      headers: { ...HEADERS, Host: 'evil.example', 'Content-Length': '1', Connection: 'upgrade' },
    });
    const [received] = receiver.requests;
    expect(received?.headers.host).toBe(`127.0.0.1:${receiver.port}`);
    expect(received?.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
  });

  it('410 is a final failure (the domain disables the webhook)', async () => {
    receiver.setHandler((_req, res) => {
      res.statusCode = 410;
      res.end('gone for good');
    });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({
      statusCode: 410,
      error: 'HTTP 410 Gone: gone for good',
      retryable: false,
    });
  });

  it('500 is retryable, with the start of the response body in the error', async () => {
    receiver.setHandler((_req, res) => {
      res.statusCode = 500;
      res.end('database\n\tdown');
    });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({
      statusCode: 500,
      error: 'HTTP 500 Internal Server Error: database down',
      retryable: true,
      retryAfterMs: null,
    });
  });

  it('other 4xx are retryable too (the schedule bounds them)', async () => {
    receiver.setHandler((_req, res) => {
      res.statusCode = 401;
      res.end();
    });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({
      statusCode: 401,
      error: 'HTTP 401 Unauthorized',
      retryable: true,
    });
  });

  it('429 with Retry-After in seconds', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(429, { 'Retry-After': '120' });
      res.end();
    });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({ statusCode: 429, retryable: true, retryAfterMs: 120_000 });
  });

  it('503 with Retry-After as an HTTP date', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(503, { 'Retry-After': 'Tue, 01 Jan 2030 00:05:00 GMT' });
      res.end();
    });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({ statusCode: 503, retryable: true, retryAfterMs: 300_000 });
  });

  it.each([301, 302, 303, 307, 308])(
    '%i is not followed: the target gets nothing',
    async (status) => {
      const target = other.url('/stolen');
      receiver.setHandler((_req, res) => {
        res.writeHead(status, { Location: target });
        res.end();
      });
      const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
      expect(result).toMatchObject({
        statusCode: status,
        error: `redirect not followed: HTTP ${status} to ${target}`,
        retryable: true,
      });
      expect(receiver.requests).toHaveLength(1);
      expect(other.requests).toHaveLength(0);
    },
  );

  it('a receiver that never answers times out', async () => {
    const quick = createWebhookSender({
      allowHttp: true,
      allowPrivateNetworks: true,
      timeoutMs: 300,
    });
    receiver.setHandler(() => {
      // never respond
    });
    const result = await quick.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({
      statusCode: null,
      error: 'timed out after 300 ms',
      retryable: true,
      retryAfterMs: null,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(2_000);
    await quick.close();
  });

  it('a 2xx whose body never ends is still delivered once the timeout cuts the read', async () => {
    const quick = createWebhookSender({
      allowHttp: true,
      allowPrivateNetworks: true,
      timeoutMs: 300,
    });
    receiver.setHandler((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('still');
    });
    const result = await quick.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(result.durationMs).toBeLessThan(2_000);
    await quick.close();
  });

  it('reads at most maxResponseBytes of a 10 MB response, then drops the connection', async () => {
    const total = 10 * 1024 * 1024;
    let written = 0;
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    receiver.setHandler((_req, res) => {
      closedEarly = new Promise((resolve) => {
        res.on('close', () => resolve(written < total));
      });
      res.writeHead(500, { 'Content-Length': String(total) });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = (): void => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const started = Date.now();
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result.statusCode).toBe(500);
    expect(result.error).toBe(`HTTP 500 Internal Server Error: ${'x'.repeat(200)}...`);
    expect(await closedEarly).toBe(true);
    expect(written).toBeLessThan(total);
  });

  it('connection refused is a retryable network error', async () => {
    const gone = await startReceiver();
    const url = gone.url();
    await gone.close();
    const result = await sender.send({ url, body: BODY, headers: HEADERS });
    expect(result.statusCode).toBeNull();
    expect(result.retryable).toBe(true);
    expect(result.error).toMatch(/^network error: .*ECONNREFUSED/);
  });

  it('a name that does not resolve is a retryable error', async () => {
    const withDns = createWebhookSender({
      allowHttp: true,
      allowPrivateNetworks: true,
      resolver: tableResolver({}),
    });
    const result = await withDns.send({
      url: 'http://nowhere.test/',
      body: BODY,
      headers: HEADERS,
    });
    expect(result).toMatchObject({
      statusCode: null,
      error: 'could not resolve nowhere.test: ENOTFOUND',
      retryable: true,
    });
    await withDns.close();
  });

  it('a header undici cannot send is a non-retryable error, not a crash', async () => {
    const result = await sender.send({
      url: receiver.url(),
      body: BODY,
      headers: { 'X-Bad': 'a\r\nInjected: yes' },
    });
    expect(result.statusCode).toBeNull();
    expect(result.retryable).toBe(false);
    expect(result.error).toMatch(/^invalid request: /);
    expect(receiver.requests).toHaveLength(0);
  });

  it('never logs signatures, secrets or the URL path', async () => {
    await sender.send({ url: receiver.url('/hooks/tok_SECRETPATH'), body: BODY, headers: HEADERS });
    receiver.setHandler((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    await sender.send({ url: receiver.url('/hooks/tok_SECRETPATH'), body: BODY, headers: HEADERS });
    const text = logger.text();
    expect(text).not.toContain(HEADERS['X-Social-Publisher-Signature']);
    expect(text).not.toContain(HEADERS['webhook-signature']);
    expect(text).not.toContain('tok_SECRETPATH');
    expect(text).not.toContain('whsec_');
    expect(text).toContain(`http://127.0.0.1:${receiver.port}`);
  });

  it('warned loudly at creation about allowHttp and allowPrivateNetworks', () => {
    const warnings = logger.lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/WEBHOOK_ALLOW_HTTP is ON/),
        expect.stringMatching(/SSRF GUARD OFF for webhooks \(WEBHOOK_ALLOW_PRIVATE_NETWORKS\)/),
      ]),
    );
  });
});

describe('createWebhookSender with production settings', () => {
  it('logs no warning', async () => {
    const logger = memoryLogger();
    const sender = createWebhookSender({ allowHttp: false, allowPrivateNetworks: false, logger });
    expect(logger.lines).toEqual([]);
    await sender.close();
  });

  it('refuses http without sending anything (not retryable)', async () => {
    const receiver = await startReceiver();
    const sender = createWebhookSender({ allowHttp: false, allowPrivateNetworks: true });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({
      statusCode: null,
      error: 'refused: scheme http: is not allowed (https: only)',
      retryable: false,
      retryAfterMs: null,
    });
    expect(receiver.connections()).toBe(0);
    await sender.close();
    await receiver.close();
  });

  it('refuses a private receiver without connecting (not retryable)', async () => {
    const receiver = await startReceiver();
    const sender = createWebhookSender({ allowHttp: true, allowPrivateNetworks: false });
    const result = await sender.send({ url: receiver.url(), body: BODY, headers: HEADERS });
    expect(result).toMatchObject({
      statusCode: null,
      error: 'refused: the host is a private or internal address',
      retryable: false,
    });
    expect(receiver.connections()).toBe(0);
    await sender.close();
    await receiver.close();
  });
});
