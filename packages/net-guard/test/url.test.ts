import { describe, expect, it } from 'vitest';
import { AddressRefusedError, assertUrlAllowed, checkUrl } from '../src/index.ts';

const strict = { allowHttp: false, allowPrivateNetworks: false };

describe('assertUrlAllowed', () => {
  it('accepts an https URL on a host name and returns it parsed', () => {
    const url = assertUrlAllowed('https://hooks.example.com:8443/in?x=1', strict);
    expect(url.hostname).toBe('hooks.example.com');
    expect(url.port).toBe('8443');
  });

  it('accepts a public IP literal', () => {
    expect(checkUrl('https://93.184.216.34/', strict).ok).toBe(true);
    expect(checkUrl('https://[2606:4700:4700::1111]/', strict).ok).toBe(true);
  });

  it.each([
    ['not a url', 'the URL is not valid'],
    ['http://hooks.example.com/', 'scheme http: is not allowed (https: only)'],
    ['ftp://hooks.example.com/', 'scheme ftp: is not allowed'],
    ['file:///etc/passwd', 'scheme file: is not allowed'],
    ['gopher://127.0.0.1:6379/_INFO', 'scheme gopher: is not allowed'],
    ['https://user:pass@hooks.example.com/', 'credentials'],
    ['https://user@hooks.example.com/', 'credentials'],
    ['https://localhost/', 'host localhost is loopback'],
    ['https://LOCALHOST./', 'host localhost. is loopback'],
    ['https://app.localhost/', 'host app.localhost is loopback'],
    ['https://2130706433/', 'address 127.0.0.1 is loopback'],
    ['https://0177.0.0.1/', 'address 127.0.0.1 is loopback'],
    ['https://0x7f.0.0.1/', 'address 127.0.0.1 is loopback'],
    ['https://127.1/', 'address 127.0.0.1 is loopback'],
    ['https://10.1/', 'address 10.0.0.1 is private'],
    ['https://[::ffff:127.0.0.1]/', 'address ::ffff:7f00:1 is an IPv4-mapped IPv6 address'],
    ['https://[::127.0.0.1]/', 'address ::7f00:1 is an IPv4-compatible IPv6 address'],
    ['https://169.254.169.254/latest/meta-data/', 'address 169.254.169.254 is a cloud metadata'],
    ['https://[fd00:ec2::254]/', 'address fd00:ec2::254 is a cloud metadata address'],
  ])('refuses %s: %s', (url, detail) => {
    const result = checkUrl(url, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail).toContain(detail);
    expect(() => assertUrlAllowed(url, strict)).toThrow(AddressRefusedError);
  });

  it.each([
    ['https://2130706433/', 'the host is a private or internal address'],
    ['https://10.1/', 'the host is a private or internal address'],
    ['https://[::ffff:127.0.0.1]/', 'the host is a private or internal address'],
    ['https://169.254.169.254/latest/meta-data/', 'the host is a private or internal address'],
    ['https://[fd00:ec2::254]/', 'the host is a private or internal address'],
    ['https://localhost/', 'host localhost is a private or internal address'],
  ])('the reason for a client names neither the address nor its range: %s', (url, reason) => {
    const result = checkUrl(url, strict);
    expect(result).toMatchObject({ ok: false, reason });
  });

  it('a refusal that is not about an address reads the same for the client and the log', () => {
    expect(checkUrl('ftp://hooks.example.com/', strict)).toEqual({
      ok: false,
      reason: 'scheme ftp: is not allowed (https: only)',
      detail: 'scheme ftp: is not allowed (https: only)',
    });
  });

  it('the thrown error carries the reason and a stable code', () => {
    try {
      assertUrlAllowed('https://10.0.0.5/', strict);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AddressRefusedError);
      const refusal = error as AddressRefusedError;
      expect(refusal.code).toBe('SP_ADDRESS_REFUSED');
      expect(refusal.reason).toBe('the host is a private or internal address');
      expect(refusal.message).toBe('refused: the host is a private or internal address');
      expect(refusal.detail).toBe('address 10.0.0.5 is private');
    }
  });

  it('allowHttp accepts http: but nothing else', () => {
    const policy = { allowHttp: true, allowPrivateNetworks: false };
    expect(checkUrl('http://hooks.example.com/', policy).ok).toBe(true);
    expect(checkUrl('ftp://hooks.example.com/', policy)).toMatchObject({
      ok: false,
      reason: 'scheme ftp: is not allowed (https: or http: only)',
    });
    expect(checkUrl('http://127.0.0.1/', policy).ok).toBe(false);
  });

  it('allowPrivateNetworks accepts private literals, still refuses credentials', () => {
    const policy = { allowHttp: true, allowPrivateNetworks: true };
    expect(checkUrl('http://127.0.0.1:8080/', policy).ok).toBe(true);
    expect(checkUrl('https://localhost/', policy).ok).toBe(true);
    expect(checkUrl('http://a:b@127.0.0.1/', policy).ok).toBe(false);
  });

  it('host names pass the pre-flight: they are checked at connect time', () => {
    expect(checkUrl('https://127.0.0.1.nip.io/', strict).ok).toBe(true);
    expect(checkUrl('https://internal.example/', strict).ok).toBe(true);
  });
});
