/**
 * Create-time SSRF check on a URL host, by its literal form only (no DNS: the domain does no
 * I/O). The delivery-time guard resolves names and checks again with ipaddr.js; this one gives
 * an early, clear validation error for the obvious cases.
 */

// [network, prefix length] of every IPv4 range that is not globally routable.
const PRIVATE_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

const IPV4_RANGES = PRIVATE_IPV4.map(([network, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (parseIpv4(network) ?? 0) & mask, mask };
});

function isPrivateIpv4(address: number): boolean {
  return IPV4_RANGES.some(({ base, mask }) => (address & mask) >>> 0 === base >>> 0);
}

/** Eight 16-bit groups, or null. Accepts an embedded dotted IPv4 tail and drops a zone id. */
function parseIpv6(text: string): number[] | null {
  let source = text.replace(/%.*$/, '');
  const lastColon = source.lastIndexOf(':');
  const tail = source.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (v4 === null) return null;
    source = `${source.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = source.split('::');
  if (halves.length > 2) return null;
  const toGroups = (part: string | undefined): number[] | null => {
    if (!part) return [];
    const groups = part.split(':');
    if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return null;
    return groups.map((group) => Number.parseInt(group, 16));
  };
  const head = toGroups(halves[0]);
  const rest = toGroups(halves[1]);
  if (!head || !rest) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - rest.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...rest];
}

const embeddedIpv4 = (high: number, low: number): number => high * 0x10000 + low;

function isPrivateIpv6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroThrough = (n: number) => g.slice(0, n).every((group) => group === 0);
  if (zeroThrough(6)) return true; // ::, ::1 and the deprecated IPv4-compatible ::/96
  // IPv4-mapped ::ffff:0:0/96 is refused outright, as the delivery-time guard does: a public
  // service has no reason to be given one, and it is the classic way around IPv4 checks.
  if (zeroThrough(5) && g5 === 0xffff) return true;
  if (zeroThrough(4) && g4 === 0xffff && g5 === 0) return true; // IPv4-translated
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPrivateIpv4(embeddedIpv4(g6, g7)); // NAT64 well-known prefix
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard-only
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0xdb8)) return true; // Teredo, documentation
  if (g0 === 0x2002) return isPrivateIpv4(embeddedIpv4(g1, g2)); // 6to4
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated) fec0::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** Runs the host through the WHATWG parser so 0x7f.1, 2130706433 or 0177.0.0.1 become 127.0.0.1. */
function normaliseHost(host: string): string {
  const trimmed = host.trim().toLowerCase();
  const bare = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  if (bare.includes(':')) return bare;
  try {
    return new URL(`http://${bare}/`).hostname.replace(/\.$/, '');
  } catch {
    return bare.replace(/\.$/, '');
  }
}

/**
 * True when the host (as in `URL.hostname`, brackets optional) is a loopback, private,
 * link-local, CGNAT, multicast, reserved or unspecified IP literal, or an internal-only name:
 * `localhost`, `*.localhost`, `*.local`, `*.internal` (incl. metadata.google.internal),
 * `*.home.arpa`, or a single-label name that only a local resolver search list can answer.
 */
export function isPrivateAddressLiteral(host: string): boolean {
  const name = normaliseHost(host);
  if (name === '') return true;
  if (name.includes(':')) {
    const groups = parseIpv6(name);
    return groups === null ? true : isPrivateIpv6(groups);
  }
  const v4 = parseIpv4(name);
  if (v4 !== null) return isPrivateIpv4(v4);
  if (name === 'localhost' || !name.includes('.')) return true;
  return INTERNAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}
