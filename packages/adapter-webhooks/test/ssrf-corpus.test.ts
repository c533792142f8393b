/**
 * The SSRF corpus of issue 7: every URL is refused at the right stage, with a clear reason,
 * and nothing is sent to any of them.
 *
 * - creation stage: IP literals (in every spelling a URL parser accepts) and internal names.
 *   The domain's create-time check (validateWebhookInput / isPrivateAddressLiteral) refuses
 *   them, and so do the sender's pre-flight check and the guarded dispatcher on its own.
 * - delivery stage: host names that pass creation (no DNS then) but resolve to refused
 *   addresses. The sender resolves them (injected resolver), checks every address, and
 *   refuses before connecting.
 *
 * Every URL carries the port of a local TCP listener; loopback ones, and in a second pass
 * every name, would reach it if the guard let them through. It must accept 0 connections
 * (a positive control proves it would count one).
 *
 * The reason (address and range) is in the server's log; the delivery's error, which the API
 * shows, says only that the host is or resolves to a private or internal address.
 */
import { isPrivateAddressLiteral, validateWebhookInput } from '@social-publisher/domain';
import {
  AddressRefusedError,
  checkUrl,
  createGuardedDispatcher,
  resolveAndCheck,
} from '@social-publisher/net-guard';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookSender } from '../src/index.ts';
import { startConnectionCounter, tableResolver } from './helpers.ts';

/** [host as written in the URL, fragment of the refusal reason in the log] */
const LITERALS: Array<[host: string, reason: string]> = [
  // IPv4 loopback in every spelling
  ['127.0.0.1', 'address 127.0.0.1 is loopback'],
  ['127.255.255.254', 'address 127.255.255.254 is loopback'],
  ['2130706433', 'address 127.0.0.1 is loopback'], // decimal
  ['0177.0.0.1', 'address 127.0.0.1 is loopback'], // octal
  ['017700000001', 'address 127.0.0.1 is loopback'], // octal, one part
  ['0x7f.0.0.1', 'address 127.0.0.1 is loopback'], // hex
  ['0x7f000001', 'address 127.0.0.1 is loopback'], // hex, one part
  ['0x7f.0x0.0x0.0x1', 'address 127.0.0.1 is loopback'],
  ['127.1', 'address 127.0.0.1 is loopback'], // short
  ['127.0.1', 'address 127.0.0.1 is loopback'], // short, three parts
  ['localhost', 'host localhost is loopback'],
  // private, in several spellings
  ['10.0.0.1', 'address 10.0.0.1 is private'],
  ['10.1', 'address 10.0.0.1 is private'], // short
  ['012.0.0.1', 'address 10.0.0.1 is private'], // octal
  ['0x0a.0x00.0x00.0x01', 'address 10.0.0.1 is private'], // hex
  ['167772161', 'address 10.0.0.1 is private'], // decimal
  ['172.16.0.1', 'address 172.16.0.1 is private'],
  ['172.31.255.255', 'address 172.31.255.255 is private'],
  ['192.168.1.1', 'address 192.168.1.1 is private'],
  ['3232235777', 'address 192.168.1.1 is private'], // decimal
  // unspecified, broadcast, multicast, reserved
  ['0.0.0.0', 'address 0.0.0.0 is unspecified'],
  ['0', 'address 0.0.0.0 is unspecified'],
  ['255.255.255.255', 'address 255.255.255.255 is broadcast'],
  ['224.0.0.1', 'address 224.0.0.1 is multicast'],
  ['239.255.255.250', 'address 239.255.255.250 is multicast'],
  ['240.0.0.1', 'address 240.0.0.1 is reserved'],
  ['192.0.0.8', 'address 192.0.0.8 is reserved'],
  ['192.0.2.1', 'address 192.0.2.1 is documentation'],
  ['198.51.100.7', 'address 198.51.100.7 is documentation'],
  ['203.0.113.9', 'address 203.0.113.9 is documentation'],
  ['198.18.0.1', 'address 198.18.0.1 is benchmarking'],
  // link-local, CGNAT, cloud metadata
  ['169.254.0.1', 'address 169.254.0.1 is link-local'],
  ['169.254.169.254', 'address 169.254.169.254 is a cloud metadata address'],
  ['0xa9fea9fe', 'address 169.254.169.254 is a cloud metadata address'], // hex
  ['2852039166', 'address 169.254.169.254 is a cloud metadata address'], // decimal
  ['100.100.100.200', 'address 100.100.100.200 is a cloud metadata address'],
  ['100.64.0.1', 'address 100.64.0.1 is carrier-grade NAT'],
  ['100.127.255.254', 'address 100.127.255.254 is carrier-grade NAT'],
  // IPv6
  ['[::1]', 'address ::1 is loopback'],
  ['[::]', 'address :: is unspecified'],
  ['[0:0:0:0:0:0:0:1]', 'address ::1 is loopback'],
  ['[::ffff:127.0.0.1]', 'is an IPv4-mapped IPv6 address embedding 127.0.0.1 (loopback)'],
  ['[::ffff:7f00:1]', 'is an IPv4-mapped IPv6 address embedding 127.0.0.1 (loopback)'],
  ['[0:0:0:0:0:ffff:7f00:0001]', 'is an IPv4-mapped IPv6 address embedding 127.0.0.1'],
  ['[::ffff:10.0.0.1]', 'is an IPv4-mapped IPv6 address embedding 10.0.0.1 (private)'],
  ['[::ffff:169.254.169.254]', 'embedding 169.254.169.254 (a cloud metadata address)'],
  ['[::127.0.0.1]', 'is an IPv4-compatible IPv6 address embedding 127.0.0.1 (loopback)'],
  ['[::10.0.0.1]', 'is an IPv4-compatible IPv6 address embedding 10.0.0.1 (private)'],
  ['[2002:7f00:1::]', 'is a 6to4 address (2002::/16) embedding 127.0.0.1 (loopback)'],
  ['[2002:a9fe:a9fe::]', 'is a 6to4 address (2002::/16) embedding 169.254.169.254'],
  ['[64:ff9b::a00:1]', 'is a NAT64 address embedding 10.0.0.1 (private)'],
  ['[64:ff9b::7f00:1]', 'is a NAT64 address embedding 127.0.0.1 (loopback)'],
  ['[64:ff9b:1::a00:1]', 'is a NAT64 address embedding 10.0.0.1 (private)'],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'is a Teredo address'],
  ['[fd12::1]', 'address fd12::1 is unique local'],
  ['[fc00::1]', 'address fc00::1 is unique local'],
  ['[fd00:ec2::254]', 'address fd00:ec2::254 is a cloud metadata address'],
  ['[fe80::1]', 'address fe80::1 is link-local'],
  ['[fec0::1]', 'address fec0::1 is site-local'],
  ['[ff02::1]', 'address ff02::1 is multicast'],
  ['[2001:db8::1]', 'address 2001:db8::1 is documentation'],
];

const PUBLIC = '93.184.216.34';

/** [host name, what it resolves to, fragment of the refusal reason in the log] */
const NAMES: Array<[name: string, addresses: string[], reason: string]> = [
  [
    'internal.attacker.example',
    ['10.0.0.5'],
    'address 10.0.0.5 of internal.attacker.example is private',
  ],
  [
    'loop.attacker.example',
    ['127.0.0.1'],
    'address 127.0.0.1 of loop.attacker.example is loopback',
  ],
  ['loop6.attacker.example', ['::1'], 'address ::1 of loop6.attacker.example is loopback'],
  ['metadata.attacker.example', ['169.254.169.254'], 'is a cloud metadata address'],
  [
    'aws6.attacker.example',
    ['fd00:ec2::254'],
    'address fd00:ec2::254 of aws6.attacker.example is a cloud metadata address',
  ],
  ['alibaba.attacker.example', ['100.100.100.200'], 'is a cloud metadata address'],
  ['cgnat.attacker.example', ['100.64.1.1'], 'is carrier-grade NAT'],
  ['linklocal.attacker.example', ['169.254.10.10'], 'is link-local'],
  ['ula.attacker.example', ['fd12:3456::1'], 'is unique local'],
  ['mapped.attacker.example', ['::ffff:127.0.0.1'], 'embedding 127.0.0.1 (loopback)'],
  ['nat64.attacker.example', ['64:ff9b::a00:5'], 'is a NAT64 address embedding 10.0.0.5'],
  [
    'sixtofour.attacker.example',
    ['2002:c0a8:101::1'],
    'is a 6to4 address (2002::/16) embedding 192.168.1.1',
  ],
  ['zero.attacker.example', ['0.0.0.0'], 'is unspecified'],
  ['multicast.attacker.example', ['224.0.0.251'], 'is multicast'],
  ['broadcast.attacker.example', ['255.255.255.255'], 'is broadcast'],
  ['127.0.0.1.nip.io', ['127.0.0.1'], 'address 127.0.0.1 of 127.0.0.1.nip.io is loopback'],
  // every address is checked: one bad answer among good ones refuses the host
  [
    'mixed.attacker.example',
    [PUBLIC, '10.0.0.5'],
    'address 10.0.0.5 of mixed.attacker.example is private',
  ],
  [
    'mixed6.attacker.example',
    ['2606:4700:4700::1111', 'fe80::1'],
    'address fe80::1 of mixed6.attacker.example is link-local',
  ],
  [
    'aaaa-only.attacker.example',
    ['::ffff:a9fe:a9fe'],
    'embedding 169.254.169.254 (a cloud metadata address)',
  ],
];

const REBIND = 'rebind.attacker.example';

describe('SSRF corpus', () => {
  let counter: Awaited<ReturnType<typeof startConnectionCounter>>;
  let url: (host: string) => string;
  let rebindCalls = 0;
  const table: Record<string, string[] | (() => string[])> = Object.fromEntries(
    NAMES.map(([name, addresses]) => [name, addresses]),
  );
  // Public when the webhook is created, loopback once it is delivered.
  table[REBIND] = () => (++rebindCalls === 1 ? [PUBLIC] : ['127.0.0.1']);
  const resolver = tableResolver(table);
  const warnings: string[] = [];
  const record = (obj: object, msg?: string) => void warnings.push(`${msg} ${JSON.stringify(obj)}`);
  const logger = { debug: () => {}, info: () => {}, warn: record, error: record };
  const sender = createWebhookSender({
    allowHttp: false,
    allowPrivateNetworks: false,
    timeoutMs: 2_000,
    resolver,
    logger,
  });
  /** The warnings logged while `run` ran. */
  const logged = async (run: () => Promise<unknown>): Promise<string> => {
    const from = warnings.length;
    await run();
    return warnings.slice(from).join('\n');
  };
  const body = '{"event":"post.published"}';
  const headers = { 'Content-Type': 'application/json' };

  beforeAll(async () => {
    counter = await startConnectionCounter();
    url = (host) => `https://${host}:${counter.port}/hook`;
  });
  afterAll(async () => {
    await sender.close();
    await counter.close();
  });

  it('holds at least 50 URLs', () => {
    expect(LITERALS.length + NAMES.length + 1).toBeGreaterThanOrEqual(50);
  });

  describe('refused at creation (literal check)', () => {
    it.each(LITERALS)('https://%s/ — %s', async (host, reason) => {
      const target = url(host);
      // 1. the domain's create-time rule
      const problems = validateWebhookInput({ url: target, events: ['post.published'] });
      expect(problems.filter((p) => p.field === 'url')).toEqual([
        {
          field: 'url',
          message:
            'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
        },
      ]);
      expect(isPrivateAddressLiteral(new URL(target).hostname)).toBe(true);
      // 2. the sender's pre-flight check, with the reason for the log
      const pre = checkUrl(target, { allowHttp: false, allowPrivateNetworks: false });
      expect(pre.ok).toBe(false);
      if (!pre.ok) expect(pre.detail).toContain(reason);
      // 3. the sender: refused, final, nothing sent; the reason logged, not in the error
      let result: Awaited<ReturnType<typeof sender.send>> | undefined;
      const log = await logged(async () => {
        result = await sender.send({ url: target, body, headers });
      });
      expect(result).toMatchObject({
        statusCode: null,
        retryable: false,
        retryAfterMs: null,
        error:
          host === 'localhost'
            ? 'refused: host localhost is a private or internal address'
            : 'refused: the host is a private or internal address',
      });
      expect(log).toContain(reason);
    });

    it.each(LITERALS.filter(([host]) => host !== 'localhost'))(
      'the dispatcher alone (no pre-flight) refuses https://%s/ at connect time',
      async (host) => {
        const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: false, resolver });
        const calls = resolver.calls.length;
        const error = await request(url(host), { method: 'POST', body, dispatcher }).catch(
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(AddressRefusedError);
        expect((error as AddressRefusedError).reason).toBe(
          'the host is a private or internal address',
        );
        expect((error as AddressRefusedError).detail).toMatch(/^address \S+ is /);
        expect(resolver.calls.length).toBe(calls); // literals never go to DNS
        await dispatcher.close();
      },
    );
  });

  describe('refused at delivery (resolved addresses)', () => {
    it.each(NAMES)('https://%s/ -> %j — %s', async (name, _addresses, reason) => {
      const target = url(name);
      // passes creation: a name, and the domain does no DNS
      expect(validateWebhookInput({ url: target, events: ['post.published'] })).toEqual([]);
      expect(checkUrl(target, { allowHttp: false, allowPrivateNetworks: false }).ok).toBe(true);
      // refused when delivered: the error names the host only, the log the address too
      let result: Awaited<ReturnType<typeof sender.send>> | undefined;
      const log = await logged(async () => {
        result = await sender.send({ url: target, body, headers });
      });
      expect(result).toMatchObject({
        statusCode: null,
        retryable: false,
        retryAfterMs: null,
        error: `refused: ${name} resolves to a private or internal address`,
      });
      expect(log).toMatch(/address \S+ of \S+ is /);
      expect(log).toContain(reason);
    });

    it(`${REBIND}: public at creation, loopback at delivery`, async () => {
      const target = url(REBIND);
      expect(validateWebhookInput({ url: target, events: ['post.failed'] })).toEqual([]);
      // Even a creation-time DNS check would pass: the name resolves to a public address then.
      await expect(
        resolveAndCheck(REBIND, { allowPrivateNetworks: false, resolver }),
      ).resolves.toEqual([{ address: PUBLIC, family: 4 }]);
      // At delivery it resolves to 127.0.0.1 (the counter): refused, resolved once, not sent.
      const before = resolver.calls.filter((n) => n === REBIND).length;
      const result = await sender.send({ url: target, body, headers });
      expect(result).toMatchObject({
        statusCode: null,
        retryable: false,
        error: `refused: ${REBIND} resolves to a private or internal address`,
      });
      expect(resolver.calls.filter((n) => n === REBIND).length).toBe(before + 1);
    });

    it('every corpus name pointed at the local listener (127.0.0.1) is refused', async () => {
      const toCounter = tableResolver(
        Object.fromEntries([...NAMES.map(([name]) => name), REBIND].map((n) => [n, ['127.0.0.1']])),
      );
      const pointed = createWebhookSender({
        allowHttp: false,
        allowPrivateNetworks: false,
        resolver: toCounter,
      });
      for (const name of [...NAMES.map(([n]) => n), REBIND]) {
        const result = await pointed.send({ url: url(name), body, headers });
        expect(result.error, name).toBe(
          `refused: ${name} resolves to a private or internal address`,
        );
        expect(result.retryable, name).toBe(false);
      }
      await pointed.close();
    });
  });

  it('nothing was sent: the local listener accepted 0 connections', () => {
    expect(counter.count()).toBe(0);
  });

  it('positive control: with the guard off, the same name does reach the listener', async () => {
    const open = createWebhookSender({
      allowHttp: false,
      allowPrivateNetworks: true,
      timeoutMs: 1_000,
      resolver: tableResolver({ 'loop.attacker.example': ['127.0.0.1'] }),
    });
    const result = await open.send({ url: url('loop.attacker.example'), body, headers });
    expect(result.statusCode).toBeNull(); // the listener hangs up: no TLS, no HTTP
    expect(result.error).not.toMatch(/^refused/);
    expect(counter.count()).toBe(1);
    await open.close();
  });
});
