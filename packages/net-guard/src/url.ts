import { checkAddress, isIpLiteral } from './check-address.ts';
import { AddressRefusedError, refusalReasons } from './errors.ts';

export interface UrlPolicy {
  /** Accept `http:` as well as `https:`. Local development only. */
  allowHttp: boolean;
  /** Skip the address checks. Local development only. */
  allowPrivateNetworks: boolean;
}

/**
 * A refusal has a `reason` a client may read (no address, no range) and a `detail` for the
 * server's log (the address and its range, when the refusal is about an address).
 */
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string; detail: string };

const refused = (reason: string, detail: string = reason): UrlCheck => ({
  ok: false,
  reason,
  detail,
});

/** Hostnames that name the local machine by definition (RFC 6761), refused without DNS. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The pre-flight check of an outgoing URL, before any DNS lookup: parseable, `https:` (or
 * `http:` when allowed), no credentials, and when the host is an IP literal (in any of the
 * forms the WHATWG parser normalizes: decimal, octal, hex, short, bracketed IPv6) it must
 * pass checkAddress. Host names are checked again, address by address, at connect time by
 * the guarded dispatcher; this function alone is not enough.
 */
export function checkUrl(input: string | URL, policy: UrlPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refused('the URL is not valid');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    const allowed = policy.allowHttp ? 'https: or http:' : 'https:';
    return refused(`scheme ${url.protocol} is not allowed (${allowed} only)`);
  }
  if (url.username !== '' || url.password !== '') {
    return refused('URLs with credentials (user:password@) are not allowed');
  }
  const host = url.hostname;
  if (host === '') return refused('the URL has no host');
  if (policy.allowPrivateNetworks) return { ok: true, url };
  if (isLocalhostName(host)) {
    return refused(refusalReasons.address(host), `host ${host} is loopback`);
  }
  if (isIpLiteral(host)) {
    const bare = host.startsWith('[') ? host.slice(1, -1) : host;
    const check = checkAddress(bare);
    if (!check.ok) {
      return refused(refusalReasons.address(null), `address ${bare} is ${check.reason}`);
    }
  }
  return { ok: true, url };
}

/** checkUrl that throws AddressRefusedError; returns the parsed URL. */
export function assertUrlAllowed(input: string | URL, policy: UrlPolicy): URL {
  const result = checkUrl(input, policy);
  if (!result.ok) throw new AddressRefusedError(result.reason, result.detail);
  return result.url;
}
