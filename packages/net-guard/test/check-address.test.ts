import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAddress, isIpLiteral, normalizeIp } from '../src/index.ts';

const refused: Array<[ip: string, reason: string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['10.0.0.5', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.0.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.254', 'carrier-grade NAT'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['2001:2::1', 'benchmarking'],
  ['fd12::1', 'unique local'],
  ['fc00::1', 'unique local'],
  ['fec0::1', 'site-local'],
  ['100::1', 'discard'],
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.170.2', 'cloud metadata'],
  ['100.100.100.200', 'cloud metadata'],
  ['fd00:ec2::254', 'cloud metadata'],
  ['::ffff:127.0.0.1', 'IPv4-mapped IPv6 address embedding 127.0.0.1 (loopback)'],
  ['::ffff:7f00:1', 'IPv4-mapped IPv6 address embedding 127.0.0.1 (loopback)'],
  ['::ffff:a9fe:a9fe', 'embedding 169.254.169.254 (a cloud metadata address)'],
  ['::ffff:8.8.8.8', 'IPv4-mapped IPv6 address embedding 8.8.8.8 (public)'],
  ['::127.0.0.1', 'IPv4-compatible IPv6 address embedding 127.0.0.1 (loopback)'],
  ['::7f00:1', 'IPv4-compatible IPv6 address embedding 127.0.0.1 (loopback)'],
  ['::ffff:0:7f00:1', 'IPv4-translated IPv6 address'],
  ['2002:7f00:1::', '6to4 address (2002::/16) embedding 127.0.0.1 (loopback)'],
  ['2002:a9fe:a9fe::1', '6to4 address (2002::/16) embedding 169.254.169.254'],
  ['2002:808:808::1', '6to4'],
  ['64:ff9b::a00:1', 'NAT64 address embedding 10.0.0.1 (private)'],
  ['64:ff9b::808:808', 'NAT64 address embedding 8.8.8.8 (public)'],
  ['64:ff9b:1::a00:1', 'NAT64'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['4000::1', 'outside the global unicast range 2000::/3'],
  ['5f00::1', 'segment routing'],
  // non-canonical IPv4 forms are read the way a URL (and inet_aton) reads them
  ['2130706433', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['0x7f.0.0.1', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['127.1', 'loopback'],
  ['10.1', 'private'],
  ['[::1]', 'loopback'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '151.101.1.69',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '[2606:4700:4700::1111]',
];

describe('checkAddress', () => {
  it.each(refused)('refuses %s (%s)', (ip, reason) => {
    const result = checkAddress(ip);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it.each(allowed)('allows the public address %s', (ip) => {
    expect(checkAddress(ip)).toEqual({ ok: true });
  });

  it.each([
    'example.com',
    '',
    '1.2.3.4.5',
    '08.1.1.1',
    'evil.com@127.0.0.1',
    '::ffff:1.2.3',
    ':::',
  ])('refuses %j as not an IP address', (text) => {
    expect(checkAddress(text)).toEqual({ ok: false, reason: 'not an IP address' });
  });

  const octet = fc.integer({ min: 0, max: 255 });
  const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
  const hex16 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));

  it('refuses every address of the private, loopback, link-local and CGNAT ranges', () => {
    const inRange = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc
        .tuple(fc.integer({ min: 16, max: 31 }), octet, octet)
        .map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
      fc
        .tuple(fc.integer({ min: 64, max: 127 }), octet, octet)
        .map(([b, c, d]) => `100.${b}.${c}.${d}`),
      fc.tuple(fc.integer({ min: 224, max: 255 }), octet, octet, octet).map((o) => o.join('.')),
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `0.${b}.${c}.${d}`),
    );
    fc.assert(fc.property(inRange, (ip) => !checkAddress(ip).ok));
  });

  it('refuses every IPv4-mapped, compatible, NAT64 and 6to4 address, naming the embedded IPv4', () => {
    fc.assert(
      fc.property(ipv4, (v4) => {
        for (const v6 of [`::ffff:${v4}`, `64:ff9b::${v4}`]) {
          const result = checkAddress(v6);
          if (result.ok || !result.reason.includes(`embedding ${v4} (`)) return false;
        }
        const [a = 0, b = 0, c = 0, d = 0] = v4.split('.').map(Number);
        const sixToFour = `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`;
        return !checkAddress(sixToFour).ok && !checkAddress(`::${v4}`).ok;
      }),
    );
  });

  it('refuses every unique local and link-local IPv6 address', () => {
    const rest = fc.array(hex16, { minLength: 7, maxLength: 7 }).map((g) => g.join(':'));
    const ula = fc
      .tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), rest)
      .map(([h, r]) => `${h.toString(16)}:${r}`);
    const linkLocal = fc
      .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), rest)
      .map(([h, r]) => `${h.toString(16)}:${r}`);
    fc.assert(fc.property(fc.oneof(ula, linkLocal), (ip) => !checkAddress(ip).ok));
  });

  it('a public IPv4 address is allowed, and its mapped IPv6 form is not', () => {
    const publicV4 = fc.tuple(octet, octet, octet).map(([b, c, d]) => `8.${b}.${c}.${d}`);
    fc.assert(
      fc.property(publicV4, (ip) => checkAddress(ip).ok && !checkAddress(`::ffff:${ip}`).ok),
    );
  });
});

describe('isIpLiteral / normalizeIp', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['::127.0.0.1', '::7f00:1'],
    ['::FFFF:7F00:1', '::ffff:7f00:1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
  ])('reads %s as %s', (text, canonical) => {
    expect(isIpLiteral(text)).toBe(true);
    expect(normalizeIp(text)).toBe(canonical);
  });

  it.each(['example.com', 'deadbeef', 'a.b', '127.0.0.1.nip.io', ''])('%j is a name', (text) => {
    expect(isIpLiteral(text)).toBe(false);
    expect(normalizeIp(text)).toBeNull();
  });
});
