import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressCheck = { ok: true } | { ok: false; reason: string };

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/**
 * Cloud metadata endpoints. They already fall in refused ranges (link-local, unique local,
 * CGNAT); they are named here so the refusal reason says what they are.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean...
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  'fd00:ec2::254', // AWS IPv6 (Nitro)
]);

/** How ipaddr.js range names read in a sentence: `address X is <phrase>`. */
const RANGE_PHRASES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved',
  as112: 'reserved (AS112)',
  amt: 'reserved (AMT)',
  uniqueLocal: 'unique local (fc00::/7)',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address (::ffff:0:0:0/96)',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address (2002::/16)',
  teredo: 'a Teredo address (2001::/32)',
  benchmarking: 'benchmarking',
  deprecatedSiteLocal: 'site-local (deprecated, fec0::/10)',
  discard: 'discard-only (100::/64)',
  as112v6: 'reserved (AS112)',
  deprecatedOrchid: 'reserved (ORCHID)',
  orchid2: 'reserved (ORCHIDv2)',
  droneRemoteIdProtocolEntityTags: 'reserved (DRIP)',
  segmentRouting: 'reserved (segment routing, 5f00::/16)',
};

/**
 * Sub-ranges that ipaddr.js folds into `reserved`, used only to word the reason more precisely.
 * The refusal itself never depends on this list: anything ipaddr.js does not classify as
 * `unicast` is refused.
 */
const LABELS: ReadonlyArray<readonly [string, string]> = [
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['198.18.0.0/15', 'benchmarking (198.18.0.0/15)'],
  ['2001:db8::/32', 'documentation (2001:db8::/32)'],
  ['3fff::/20', 'documentation (3fff::/20)'],
];
const PARSED_LABELS = LABELS.map(([cidr, label]) => [ipaddr.parseCIDR(cidr), label] as const);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function label(addr: IPv4 | IPv6, range: string): string {
  for (const [[net, bits], text] of PARSED_LABELS) {
    if (net.kind() === addr.kind() && addr.match(net, bits)) return text;
  }
  return RANGE_PHRASES[range] ?? range;
}

function v4FromParts(high: number, low: number): IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 address an IPv6 address carries, for the families that embed one. */
function embeddedIPv4(addr: IPv6, range: string): IPv4 | null {
  const p = addr.parts;
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052': // 64:ff9b::/96 and 64:ff9b:1::/48 (RFC 6052 well-known /96 layout)
      return v4FromParts(p[6] ?? 0, p[7] ?? 0);
    case '6to4':
      return v4FromParts(p[1] ?? 0, p[2] ?? 0);
    default:
      return null;
  }
}

function describeV4(addr: IPv4): string {
  const text = addr.toString();
  if (METADATA_ADDRESSES.has(text)) return 'a cloud metadata address';
  const range = addr.range();
  return range === 'unicast' ? 'public' : label(addr, range);
}

/**
 * Reads an IP literal the way the WHATWG URL parser does (so the way undici and Node read it
 * in a URL): decimal, octal, hex and short IPv4 forms, bracketed or bare IPv6. Classification
 * is then done by ipaddr.js on the canonical form. IPv6 with a zone id (`fe80::1%eth0`),
 * which URLs cannot carry, is left to ipaddr.js.
 */
function parse(ip: string): IPv4 | IPv6 | null {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  let canonical: string | null = null;
  if (text.includes('%')) {
    canonical = ipaddr.IPv6.isValid(text) ? text : null;
  } else if (/^[0-9a-f:.]+$/i.test(text) && text.includes(':')) {
    canonical = whatwgHost(`[${text}]`);
    if (canonical !== null) canonical = canonical.slice(1, -1);
  } else if (/^[0-9a-fx.]+$/i.test(text)) {
    const host = whatwgHost(text);
    canonical = host !== null && isIPv4(host) ? host : null;
  }
  if (canonical === null) return null;
  try {
    return ipaddr.parse(canonical);
  } catch {
    return null;
  }
}

function whatwgHost(host: string): string | null {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}

/**
 * Decides whether a connection to this IP address is allowed: only globally routable unicast
 * addresses are. Ranges come from ipaddr.js (anything it does not classify as `unicast` is
 * refused); IPv6 addresses must also be in 2000::/3, and every IPv6 form that embeds or
 * tunnels an IPv4 address (mapped, compatible, translated, NAT64, 6to4, Teredo) is refused,
 * with the embedded address named in the reason.
 *
 * The reason reads after the address: `address 10.0.0.5 is <reason>`.
 */
export function checkAddress(ip: string): AddressCheck {
  const addr = parse(ip);
  if (addr === null) return { ok: false, reason: 'not an IP address' };
  const normalized = addr.toString();

  if (addr.kind() === 'ipv4') {
    const v4 = addr as IPv4;
    if (METADATA_ADDRESSES.has(normalized))
      return { ok: false, reason: 'a cloud metadata address' };
    const range = v4.range();
    return range === 'unicast' ? { ok: true } : { ok: false, reason: label(v4, range) };
  }

  const v6 = addr as IPv6;
  if (METADATA_ADDRESSES.has(normalized)) return { ok: false, reason: 'a cloud metadata address' };
  const range = v6.range();
  const embedded = embeddedIPv4(v6, range);
  if (embedded !== null) {
    return {
      ok: false,
      reason: `${label(v6, range)} embedding ${embedded.toString()} (${describeV4(embedded)})`,
    };
  }
  if (range !== 'unicast') return { ok: false, reason: label(v6, range) };

  // ::/96 minus :: and ::1 (already unspecified / loopback): the deprecated IPv4-compatible form.
  const p = v6.parts;
  if (p.slice(0, 6).every((part) => part === 0)) {
    const inner = v4FromParts(p[6] ?? 0, p[7] ?? 0);
    return {
      ok: false,
      reason: `an IPv4-compatible IPv6 address embedding ${inner.toString()} (${describeV4(inner)})`,
    };
  }
  if (!v6.match(GLOBAL_UNICAST_V6)) {
    return { ok: false, reason: 'reserved (outside the global unicast range 2000::/3)' };
  }
  return { ok: true };
}

/** True when `host` (a URL hostname, brackets allowed for IPv6) is an IP literal. */
export function isIpLiteral(host: string): boolean {
  return parse(host) !== null;
}

/**
 * The canonical text of an IP literal (`0x7f.1` -> `127.0.0.1`, `[::FFFF:7f00:1]` ->
 * `::ffff:7f00:1`), read the way inet_aton reads it; null when it is not one.
 */
export function normalizeIp(ip: string): string | null {
  const addr = parse(ip);
  if (addr === null) return null;
  return addr.kind() === 'ipv6' ? (addr as IPv6).toRFC5952String() : addr.toString();
}
