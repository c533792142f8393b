/** The HTTP server: where it listens, how much it takes and how long it waits. */
import { isIP } from 'node:net';
import type { Env } from '../env-readers.ts';

/** See ServerConfig.trustProxy; the shape Fastify's `trustProxy` takes. */
export type TrustProxy = false | string[];

export interface ServerConfig {
  port: number;
  host: string;
  bodyLimitBytes: number;
  /**
   * How long a client may take to send a request, so that a slow sender cannot hold a
   * connection: its headers (HTTP_HEADERS_TIMEOUT_MS), then its body (HTTP_BODY_TIMEOUT_MS;
   * HTTP_IMPORT_BODY_TIMEOUT_MS for a CSV import, which may be megabytes;
   * HTTP_MEDIA_BODY_TIMEOUT_MS for a media upload, which may be gigabytes).
   */
  httpTimeouts: { headersMs: number; bodyMs: number; importBodyMs: number; mediaBodyMs: number };
  rateLimit: { max: number; windowMs: number };
  /**
   * Attempts that could be guesses, per client address per RATE_LIMIT_WINDOW_MS, each kind its
   * own budget: failed API-key/JWT authentications, OAuth callbacks, and wrong METRICS_TOKEN
   * and wrong ADMIN_TOKEN attempts (tokenFailures each).
   */
  attemptLimits: { authFailures: number; oauthCallbacks: number; tokenFailures: number };
  /**
   * TRUST_PROXY: whose X-Forwarded-For gives the client's address (the per-address limit of
   * failed credentials and of the OAuth callback). false: nobody's, the connection's address
   * counts; else the proxies' addresses or networks (their X-Forwarded-For is believed).
   */
  trustProxy: TrustProxy;
  idempotencyTtlMs: number;
}

export function readServer(e: Env): ServerConfig {
  return {
    port: e.int('PORT', 3000, 0, 65535),
    // The embedded mode (no DATABASE_URL) is for one machine: reachable from it only unless
    // HOST says otherwise. Production processes run behind a load balancer or in containers.
    host: e.string('HOST') ?? (e.string('DATABASE_URL') === null ? '127.0.0.1' : '0.0.0.0'),
    bodyLimitBytes: e.int('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    httpTimeouts: {
      headersMs: e.int('HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
      bodyMs: e.int('HTTP_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      importBodyMs: e.int('HTTP_IMPORT_BODY_TIMEOUT_MS', 300_000, 100, 3_600_000),
      mediaBodyMs: e.int('HTTP_MEDIA_BODY_TIMEOUT_MS', 3_600_000, 100, 86_400_000),
    },
    rateLimit: {
      max: e.int('RATE_LIMIT_MAX', 600, 1, 1_000_000),
      windowMs: e.int('RATE_LIMIT_WINDOW_MS', 60_000, 100, 3_600_000),
    },
    attemptLimits: {
      authFailures: e.int('RATE_LIMIT_AUTH_FAILURES', 30, 1, 1_000_000),
      oauthCallbacks: e.int('RATE_LIMIT_OAUTH_CALLBACKS', 60, 1, 1_000_000),
      tokenFailures: e.int('RATE_LIMIT_TOKEN_FAILURES', 10, 1, 1_000_000),
    },
    trustProxy: readTrustProxy(e),
    idempotencyTtlMs: e.int(
      'IDEMPOTENCY_TTL_MS',
      24 * 3_600_000,
      24 * 3_600_000,
      30 * 24 * 3_600_000,
    ),
  };
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** `a.b.c.d`, an IPv6 address, either with `/prefix`, or a keyword proxy-addr knows. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_KEYWORDS.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: unset or false (nobody), or a comma list of the proxies' addresses, networks
 * and proxy-addr's keywords. Refused: `true` (every hop trusted) and a count of hops (Fastify
 * cannot check the immediate peer with one, and trusts nobody): either would let a client that
 * reaches the API directly choose its own address, and so its own failed-credential budget.
 */
function readTrustProxy(e: Env): TrustProxy {
  const value = e.string('TRUST_PROXY');
  if (value === null || ['false', 'no', 'off', '0'].includes(value.toLowerCase())) return false;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !isProxyEntry(entry));
  if (bad === undefined && entries.length > 0) return entries;
  const why = ['true', 'yes', 'on', '1'].includes(value.toLowerCase())
    ? 'true would let any client choose its address with X-Forwarded-For'
    : /^\d+$/.test(value)
      ? 'a count of proxies would let a client that reaches the API directly choose its address'
      : `"${bad ?? value}" is not an address, a network or a keyword`;
  return e.report(
    'TRUST_PROXY',
    `must list the proxies in front of the API: addresses, networks (10.0.0.0/8) or loopback, linklocal, uniquelocal; ${why}`,
    false,
  );
}
