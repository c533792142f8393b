/**
 * A local webhook receiver for the end-to-end tests. Every request is checked the way a real
 * subscriber would: the `X-Social-Publisher-Signature` (`X-Social-Publisher-Signature: sha256=<hex HMAC>`,
 * recomputed here with node:crypto) and the Standard Webhooks signature (verified by the
 * independent `standardwebhooks` npm package, timestamp window included). Verified arrivals are
 * kept with their raw bytes; anything else is answered 401 and listed in `rejected`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';

export interface Arrival {
  /** Path of the subscription URL the request came to. */
  path: string;
  event: string | undefined;
  /** `webhook-id`: the delivery id, stable across attempts. */
  webhookId: string;
  webhookTimestamp: string;
  /** Every header received (lower-case names). */
  headers: Record<string, string>;
  /** The raw bytes received (the bytes that were signed). */
  body: Buffer;
  payload: Record<string, unknown>;
  /** The status this receiver answered. */
  answered: number;
  receivedAt: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port><path>` */
  url(path: string): string;
  /** Tells the receiver which secret signs what arrives at `path`. */
  register(path: string, secret: string): void;
  /** The next requests to `path` are answered with these statuses, in order (then 200). */
  answer(path: string, ...statuses: number[]): void;
  arrivals: Arrival[];
  rejected: Array<{ path: string; why: string }>;
  /** Arrivals at `path` (all paths when omitted) whose payload names `postId`. */
  arrivalsFor(postId: string, path?: string): Arrival[];
  close(): Promise<void>;
}

/** docs/api.md#webhook-signatures: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret. */
export function specSignatureValid(
  secret: string,
  body: Buffer,
  header: string | undefined,
): boolean {
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

export async function startReceiver(): Promise<Receiver> {
  const secrets = new Map<string, string>();
  const scripted = new Map<string, number[]>();
  const arrivals: Arrival[] = [];
  const rejected: Receiver['rejected'] = [];

  function check(path: string, headers: Record<string, string>, body: Buffer): string | null {
    const secret = secrets.get(path);
    if (!secret) return 'no webhook registered at this path';
    if (!specSignatureValid(secret, body, headers['x-social-publisher-signature'])) {
      return 'bad X-Social-Publisher-Signature';
    }
    try {
      new StandardWebhook(secret).verify(body, headers);
    } catch (error) {
      return `standardwebhooks: ${error instanceof Error ? error.message : String(error)}`;
    }
    return null;
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://receiver').pathname;
      const body = Buffer.concat(chunks);
      const headers = plainHeaders(request.headers);
      const why = request.method === 'POST' ? check(path, headers, body) : 'not a POST';
      if (why !== null) {
        rejected.push({ path, why });
        response.statusCode = 401;
        response.end();
        return;
      }
      const answered = scripted.get(path)?.shift() ?? 200;
      arrivals.push({
        path,
        event: headers['x-social-publisher-event'],
        webhookId: headers['webhook-id'] ?? '',
        webhookTimestamp: headers['webhook-timestamp'] ?? '',
        headers,
        body,
        payload: JSON.parse(body.toString('utf8')) as Record<string, unknown>,
        answered,
        receivedAt: Date.now(),
      });
      response.statusCode = answered;
      response.end();
    });
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    register: (path, secret) => {
      secrets.set(path, secret);
    },
    answer: (path, ...statuses) => {
      scripted.set(path, [...(scripted.get(path) ?? []), ...statuses]);
    },
    arrivals,
    rejected,
    arrivalsFor: (postId, path) =>
      arrivals.filter(
        (arrival) =>
          arrival.payload.post_id === postId && (path === undefined || arrival.path === path),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
