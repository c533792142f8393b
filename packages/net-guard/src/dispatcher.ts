import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { checkAddress, isIpLiteral, normalizeIp } from './check-address.ts';
import { AddressRefusedError, HostResolutionError, refusalReasons } from './errors.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to ALL its addresses (A and AAAA). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The part of the domain's Logger the guard uses. */
export interface GuardLogger {
  warn(obj: object, msg?: string): void;
}

export interface GuardOptions {
  /** Skip the address checks (DNS is still resolved once and the socket pinned). Dev only. */
  allowPrivateNetworks: boolean;
  /** Default: node:dns lookup with `all: true` (A and AAAA, system resolver order). */
  resolver?: Resolver;
  /**
   * Receives one warning per refused address, naming the address and its range: the refusal
   * itself (what clients read) names neither.
   */
  logger?: GuardLogger;
  /** Who uses the guard, in those warnings (e.g. `webhooks`, `media`). */
  label?: string;
}

export interface ConnectorOptions extends GuardOptions {
  /** Per connection attempt, DNS resolution included. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** Trusted CAs for TLS, REPLACING Node's default store (a private CA, a test certificate). */
  ca?: ConnectionOptions['ca'];
}

/** The connector's options; `logger` also receives the loud warning when allowPrivateNetworks is on. */
export type GuardedDispatcherOptions = ConnectorOptions;

export const systemResolver: Resolver = async (hostname) => {
  const results = await lookup(hostname, { all: true, order: 'verbatim' });
  return results.map(({ address, family }) => ({ address, family }));
};

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function errorDetail(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.message;
  }
  return String(error);
}

/**
 * Resolves `hostname` once and checks EVERY address it resolves to (a single refused
 * address refuses the host: an attacker controls which one a client would pick). IP
 * literals are checked as they are, without DNS. Returns the addresses to connect to, in
 * resolver order, with IP literals normalized (`0x7f.1` -> `127.0.0.1`).
 *
 * Throws AddressRefusedError (`internal.example resolves to a private or internal address`,
 * detail `address 10.0.0.5 of internal.example is private`, logged through `options.logger`)
 * or HostResolutionError.
 */
export async function resolveAndCheck(
  hostname: string,
  options: GuardOptions,
): Promise<ResolvedAddress[]> {
  const host = stripBrackets(hostname);
  if (isIpLiteral(host)) {
    // ipaddr.js reads the same non-canonical forms inet_aton does (octal, hex, short).
    const check = checkAddress(host);
    const normalized = normalizeLiteral(host);
    if (!check.ok && !options.allowPrivateNetworks) {
      throw refuse(options, null, normalized, check.reason);
    }
    return [{ address: normalized, family: isIP(normalized) }];
  }

  const resolver = options.resolver ?? systemResolver;
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver(host);
  } catch (error) {
    throw new HostResolutionError(host, errorDetail(error), { cause: error });
  }
  if (addresses.length === 0) throw new HostResolutionError(host, 'no addresses');

  const checked: ResolvedAddress[] = [];
  for (const entry of addresses) {
    if (!isIpLiteral(entry.address)) {
      const detail = `resolver returned ${JSON.stringify(entry.address)} for ${host}, not an IP address`;
      options.logger?.warn(
        { component: options.label ?? 'net-guard', host, refusal: detail },
        'SSRF guard refused a host',
      );
      throw new AddressRefusedError(`${host} did not resolve to an IP address`, detail);
    }
    const normalized = normalizeLiteral(entry.address);
    if (!options.allowPrivateNetworks) {
      const check = checkAddress(normalized);
      if (!check.ok) throw refuse(options, host, normalized, check.reason);
    }
    checked.push({ address: normalized, family: isIP(normalized) });
  }
  return checked;
}

/**
 * The refusal of `address` (of the name `host`, or an IP literal when null): the client-facing
 * reason names neither the address nor its range; the warning logged here names both.
 */
function refuse(
  options: GuardOptions,
  host: string | null,
  address: string,
  category: string,
): AddressRefusedError {
  const detail =
    host === null
      ? `address ${address} is ${category}`
      : `address ${address} of ${host} is ${category}`;
  options.logger?.warn(
    { component: options.label ?? 'net-guard', host: host ?? address, address, category },
    `SSRF guard refused ${detail}`,
  );
  return new AddressRefusedError(
    host === null ? refusalReasons.address(null) : refusalReasons.resolved(host),
    detail,
  );
}

/** Canonical text of an IP literal; callers have checked isIpLiteral first. */
function normalizeLiteral(ip: string): string {
  return normalizeIp(ip) ?? stripBrackets(ip);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(what()), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * An undici `connect` function that resolves the host itself, checks every address, and
 * opens the socket to a checked address (never to the name, so no second DNS lookup can
 * rebind it). TLS keeps the original host name as SNI and for certificate verification;
 * undici keeps it in the Host header. Addresses are tried in resolver order until one
 * connects.
 */
export function createGuardedConnector(options: ConnectorOptions): buildConnector.connector {
  const timeout = options.connectTimeoutMs ?? 10_000;
  const base = buildConnector({ timeout, ...(options.ca === undefined ? {} : { ca: options.ca }) });
  return (connectOptions, callback) => {
    const hostname = stripBrackets(connectOptions.hostname);
    const literal = isIpLiteral(hostname);
    // TLS: SNI and certificate checks are against the name, never the pinned address.
    const servername = connectOptions.servername || (literal ? undefined : hostname);

    withTimeout(
      resolveAndCheck(hostname, options),
      timeout,
      () => new HostResolutionError(hostname, `timed out after ${timeout} ms`),
    ).then(
      (addresses) => {
        let index = 0;
        const attempt = (): void => {
          const target = addresses[index];
          if (target === undefined) return;
          const next = (error: Error | null, socket: Parameters<buildConnector.Callback>[1]) => {
            if (error !== null && index + 1 < addresses.length) {
              index += 1;
              attempt();
            } else if (error !== null) {
              callback(error, null);
            } else if (socket) {
              callback(null, socket);
            } else {
              callback(new Error('the connector returned no socket'), null);
            }
          };
          try {
            base({ ...connectOptions, hostname: target.address, servername }, next);
          } catch (error) {
            next(error instanceof Error ? error : new Error(String(error)), null);
          }
        };
        attempt();
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), null);
      },
    );
  };
}

/**
 * The shared SSRF guard as an undici dispatcher: every connection it opens goes through
 * createGuardedConnector. Use it for every request to a user-supplied URL (webhooks, media
 * fetches), after assertUrlAllowed. Trusted endpoints (platform APIs) do not need it.
 */
export function createGuardedDispatcher(options: GuardedDispatcherOptions): Agent {
  if (options.allowPrivateNetworks) {
    options.logger?.warn(
      { allowPrivateNetworks: true, component: options.label ?? 'net-guard' },
      `SSRF GUARD OFF${options.label ? ` for ${options.label}` : ''}: requests may reach loopback, private, link-local and cloud metadata addresses. Local development and tests ONLY; never enable this in production.`,
    );
  }
  const connect = createGuardedConnector(options);
  return new Agent({ connect });
}
