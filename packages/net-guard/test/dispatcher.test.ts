import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AddressRefusedError,
  createGuardedDispatcher,
  HostResolutionError,
  type ResolvedAddress,
  type Resolver,
  resolveAndCheck,
} from '../src/index.ts';

interface Seen {
  host: string | undefined;
  servername: string | false | undefined;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A resolver over a fixed table that records every name asked. */
function tableResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses)
      throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

describe('resolveAndCheck', () => {
  const resolver = tableResolver({
    'internal.example': ['10.0.0.5'],
    'public.example': ['93.184.216.34', '2606:4700:4700::1111'],
    'mixed.example': ['93.184.216.34', '169.254.169.254'],
    'empty.example': [],
    'mapped.example': ['::ffff:127.0.0.1'],
  });
  const strict = { allowPrivateNetworks: false, resolver };

  it('refuses a name that resolves to a private address; the detail names both', async () => {
    const error = await resolveAndCheck('internal.example', strict).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect(error).toMatchObject({
      reason: 'internal.example resolves to a private or internal address',
      detail: 'address 10.0.0.5 of internal.example is private',
    });
  });

  it('refuses a name when ANY of its addresses is refused', async () => {
    await expect(resolveAndCheck('mixed.example', strict)).rejects.toMatchObject({
      reason: 'mixed.example resolves to a private or internal address',
      detail: 'address 169.254.169.254 of mixed.example is a cloud metadata address',
    });
  });

  it('checks the embedded IPv4 of a mapped AAAA answer', async () => {
    await expect(resolveAndCheck('mapped.example', strict)).rejects.toMatchObject({
      detail:
        'address ::ffff:7f00:1 of mapped.example is an IPv4-mapped IPv6 address embedding 127.0.0.1 (loopback)',
    });
  });

  it.each([
    ['app.example', ['127.0.0.1'], 'loopback'],
    ['db.example', ['192.168.1.20'], 'private'],
    ['cache.example', ['fd12::7'], 'unique local (fc00::/7)'],
    ['meta.example', ['169.254.169.254'], 'a cloud metadata address'],
  ])(
    'what a client reads of %s names no address and no range; the log names both',
    async (host, addresses, category) => {
      const logged: Array<{ obj: object; msg: string | undefined }> = [];
      const logger = { warn: (obj: object, msg?: string) => logged.push({ obj, msg }) };
      const options = {
        allowPrivateNetworks: false,
        resolver: tableResolver({ [host]: addresses }),
        logger,
        label: 'media',
      };
      const error = (await resolveAndCheck(host, options).catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(AddressRefusedError);
      const { message, reason } = error as AddressRefusedError;
      for (const text of [message, reason]) {
        expect(text).toBe(
          text === message
            ? `refused: ${host} resolves to a private or internal address`
            : `${host} resolves to a private or internal address`,
        );
        expect(text).not.toContain(addresses[0]);
        expect(text).not.toMatch(/\d+\.\d+\.\d+\.\d+|[0-9a-f]*:[0-9a-f]*:/i);
        expect(text).not.toMatch(/loopback|metadata|unique local|link-local|\(|\//);
      }
      expect(logged).toEqual([
        {
          obj: { component: 'media', host, address: addresses[0], category },
          msg: `SSRF guard refused address ${addresses[0]} of ${host} is ${category}`,
        },
      ]);
    },
  );

  it('returns every address of a public name, in resolver order', async () => {
    await expect(resolveAndCheck('public.example', strict)).resolves.toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('checks IP literals without DNS, in any form', async () => {
    resolver.calls.length = 0;
    await expect(resolveAndCheck('0x7f.1', strict)).rejects.toMatchObject({
      reason: 'the host is a private or internal address',
      detail: 'address 127.0.0.1 is loopback',
    });
    await expect(resolveAndCheck('[fd12::1]', strict)).rejects.toMatchObject({
      detail: 'address fd12::1 is unique local (fc00::/7)',
    });
    await expect(resolveAndCheck('8.8.8.8', strict)).resolves.toEqual([
      { address: '8.8.8.8', family: 4 },
    ]);
    expect(resolver.calls).toEqual([]);
  });

  it('reports resolution failures as HostResolutionError', async () => {
    await expect(resolveAndCheck('nowhere.example', strict)).rejects.toThrow(
      new HostResolutionError('nowhere.example', 'ENOTFOUND'),
    );
    await expect(resolveAndCheck('empty.example', strict)).rejects.toThrow(
      'could not resolve empty.example: no addresses',
    );
  });

  it('allowPrivateNetworks skips the checks but still resolves (and normalizes)', async () => {
    const open = { allowPrivateNetworks: true, resolver };
    await expect(resolveAndCheck('internal.example', open)).resolves.toEqual([
      { address: '10.0.0.5', family: 4 },
    ]);
    await expect(resolveAndCheck('2130706433', open)).resolves.toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
  });
});

describe('createGuardedDispatcher over a local server', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createHttpServer((req, res) => {
      seen.push({ host: req.headers.host, servername: undefined });
      res.end('hello');
    });
    server.on('connection', () => {
      connections += 1;
    });
    port = await listen(server);
  });
  afterAll(() => close(server));
  afterEach(() => {
    connections = 0;
    seen.length = 0;
  });

  it('refuses a name resolving to 127.0.0.1: nothing reaches the server', async () => {
    const resolver = tableResolver({ 'sneaky.example': ['127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: false, resolver });
    const error = await request(`http://sneaky.example:${port}/`, { dispatcher }).catch((e) => e);
    expect(error).toBeInstanceOf(AddressRefusedError);
    expect((error as AddressRefusedError).reason).toBe(
      'sneaky.example resolves to a private or internal address',
    );
    expect((error as AddressRefusedError).detail).toBe(
      'address 127.0.0.1 of sneaky.example is loopback',
    );
    expect(connections).toBe(0);
    await dispatcher.close();
  });

  it('refuses IP literals at connect time too (net.connect would skip DNS)', async () => {
    const resolver = tableResolver({});
    const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: false, resolver });
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '2130706433', '127.1']) {
      const error = await request(`http://${host}:${port}/`, { dispatcher }).catch((e) => e);
      expect(error, host).toBeInstanceOf(AddressRefusedError);
      expect((error as AddressRefusedError).reason, host).toBe(
        'the host is a private or internal address',
      );
      expect((error as AddressRefusedError).detail, host).toMatch(/^address \S+ is .*loopback/);
    }
    expect(resolver.calls).toEqual([]);
    expect(connections).toBe(0);
    await dispatcher.close();
  });

  it('with allowPrivateNetworks, connects to the resolved address and keeps the Host header', async () => {
    // `pinned.test` does not exist in real DNS: the request only works if the socket goes
    // to the address our resolver returned, never through a second lookup.
    const resolver = tableResolver({ 'pinned.test': ['127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: true, resolver });
    const response = await request(`http://pinned.test:${port}/x`, { dispatcher });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('hello');
    expect(seen).toEqual([{ host: `pinned.test:${port}`, servername: undefined }]);
    expect(resolver.calls).toEqual(['pinned.test']);
    await dispatcher.close();
  });

  it('falls back to the next checked address when one does not connect', async () => {
    // The server listens on 127.0.0.1 only: ::1 is refused (or unreachable), 127.0.0.1 works.
    const resolver = tableResolver({ 'dual.test': ['::1', '127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: true, resolver });
    const response = await request(`http://dual.test:${port}/`, { dispatcher });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    await dispatcher.close();
  });

  it('logs one loud warning when allowPrivateNetworks is on, none when off', async () => {
    const warn = vi.fn();
    const logger = { warn };
    const off = createGuardedDispatcher({ allowPrivateNetworks: false, logger });
    expect(warn).not.toHaveBeenCalled();
    const on = createGuardedDispatcher({ allowPrivateNetworks: true, logger, label: 'media' });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toMatch(/SSRF GUARD OFF for media/);
    await Promise.all([off.close(), on.close()]);
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasOpenssl())('TLS through the guard', () => {
  let dir: string;
  let cert: Buffer;
  let server: Server;
  let port: number;
  const seen: Seen[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'net-guard-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=hooks.test',
        '-addext',
        'subjectAltName=DNS:hooks.test',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'));
    server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      const socket = req.socket as typeof req.socket & { servername?: string | false };
      seen.push({ host: req.headers.host, servername: socket.servername });
      res.end('secure');
    });
    port = await listen(server);
  });
  afterAll(async () => {
    await close(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps SNI and certificate verification on the host name while connecting to the checked address', async () => {
    const resolver = tableResolver({ 'hooks.test': ['127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: true, resolver, ca: cert });
    const response = await request(`https://hooks.test:${port}/`, { dispatcher });
    expect(await response.body.text()).toBe('secure');
    expect(seen).toEqual([{ host: `hooks.test:${port}`, servername: 'hooks.test' }]);
    await dispatcher.close();
  });

  it('a certificate for another name fails verification (the pinned IP is not trusted instead)', async () => {
    const resolver = tableResolver({ 'other.test': ['127.0.0.1'] });
    const dispatcher = createGuardedDispatcher({ allowPrivateNetworks: true, resolver, ca: cert });
    const error = await request(`https://other.test:${port}/`, { dispatcher }).catch((e) => e);
    expect((error as { code?: string }).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    await dispatcher.close();
  });
});
