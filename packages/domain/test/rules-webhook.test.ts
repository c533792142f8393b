import { describe, expect, it } from 'vitest';
import {
  isPrivateAddressLiteral,
  validateWebhookEvents,
  validateWebhookInput,
  validateWebhookUrl,
} from '../src/index.ts';

const hostOf = (url: string) => new URL(url).hostname;

describe('isPrivateAddressLiteral', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '192.0.2.1',
  ])('IPv4 %s is private', (host) => {
    expect(isPrivateAddressLiteral(host)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '93.184.216.34', '11.0.0.1'])(
    'IPv4 %s is public',
    (host) => {
      expect(isPrivateAddressLiteral(host)).toBe(false);
    },
  );

  it.each([
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://0x7f.1/',
    'http://10.1/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[febf::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:c0a8:101::1]/',
    'http://[2001:db8::1]/',
    'http://[ff02::1]/',
    'http://[::127.0.0.1]/',
  ])('the host of %s is private after WHATWG normalisation', (url) => {
    expect(isPrivateAddressLiteral(hostOf(url))).toBe(true);
  });

  it('normalises raw (unparsed) hosts too', () => {
    expect(isPrivateAddressLiteral('2130706433')).toBe(true);
    expect(isPrivateAddressLiteral('0x7f.1')).toBe(true);
    expect(isPrivateAddressLiteral('[::1]')).toBe(true);
    expect(isPrivateAddressLiteral('::1')).toBe(true);
    expect(isPrivateAddressLiteral('fe80::1%eth0')).toBe(true);
    expect(isPrivateAddressLiteral('LOCALHOST.')).toBe(true);
  });

  it.each([
    'http://[2606:4700:4700::1111]/',
    'http://[2a00:1450:4001::200e]/',
    'http://[64:ff9b::808:808]/',
    'http://[2002:808:808::1]/',
  ])('the host of %s is public', (url) => {
    expect(isPrivateAddressLiteral(hostOf(url))).toBe(false);
  });

  it.each([
    'localhost',
    'api.localhost',
    'printer.local',
    'metadata.google.internal',
    'db.internal',
    'router.home.arpa',
    'intranet',
    '',
  ])('name %j is internal', (host) => {
    expect(isPrivateAddressLiteral(host)).toBe(true);
  });

  it.each(['example.com', 'hooks.example.co.uk', 'localhost.example.com', 'internal.example.com'])(
    'name %s is public',
    (host) => {
      expect(isPrivateAddressLiteral(host)).toBe(false);
    },
  );

  it('treats an unparseable IPv6-looking host as private', () => {
    expect(isPrivateAddressLiteral('1:2:3:4:5:6:7:8:9')).toBe(true);
    expect(isPrivateAddressLiteral('1::2::3')).toBe(true);
    expect(isPrivateAddressLiteral('::ffff:999.1.1.1')).toBe(true);
    expect(isPrivateAddressLiteral('1:2:3:4:5:6:7')).toBe(true);
    expect(isPrivateAddressLiteral('1:2:3:4::5:6:7:8')).toBe(true);
    expect(isPrivateAddressLiteral('zz::1')).toBe(true);
  });
});

describe('webhook url', () => {
  it('accepts a public https URL', () => {
    expect(validateWebhookUrl('https://hooks.example.com/sp?x=1')).toEqual([]);
    expect(validateWebhookUrl('https://93.184.216.34:8443/in')).toEqual([]);
  });

  it.each([
    [undefined, 'is required'],
    [5, 'must be a string, got number'],
    ['not a url', 'is not a valid URL'],
    [
      'http://hooks.example.com/',
      'must use https (a local receiver over http:// needs WEBHOOK_ALLOW_HTTP=true on the server)',
    ],
    [
      'ftp://hooks.example.com/',
      'must use https (a local receiver over http:// needs WEBHOOK_ALLOW_HTTP=true on the server)',
    ],
    ['https://user:pw@hooks.example.com/', 'must not contain credentials'],
    ['https://user@hooks.example.com/', 'must not contain credentials'],
    [
      'https://127.0.0.1/',
      'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
    ],
    [
      'https://2130706433/',
      'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
    ],
    [
      'https://[::ffff:192.168.0.1]/',
      'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
    ],
    [
      'https://metadata.google.internal/computeMetadata/v1/',
      'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
    ],
    [`https://a.example.com/${'x'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('rejects %j: %s', (url, message) => {
    expect(validateWebhookUrl(url)).toEqual([{ field: 'url', message }]);
  });

  it('reports every problem of one URL', () => {
    expect(validateWebhookUrl('http://a:b@localhost/').map((p) => p.message)).toEqual([
      'must use https (a local receiver over http:// needs WEBHOOK_ALLOW_HTTP=true on the server)',
      'must not contain credentials',
      'must not point to a private or internal address (a local receiver needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server)',
    ]);
  });

  it('the development relaxations allow http and private hosts', () => {
    const policy = { allowHttp: true, allowPrivateNetworks: true };
    expect(validateWebhookUrl('http://127.0.0.1:9999/hook', policy)).toEqual([]);
    expect(validateWebhookUrl('ftp://127.0.0.1/', policy)).toEqual([
      {
        field: 'url',
        message:
          'must use https (a local receiver over http:// needs WEBHOOK_ALLOW_HTTP=true on the server)',
      },
    ]);
  });
});

describe('webhook events', () => {
  it('accepts a non-empty subset', () => {
    expect(validateWebhookEvents(['post.published'])).toEqual([]);
    expect(validateWebhookEvents(['post.failed', 'post.partial', 'post.published'])).toEqual([]);
  });

  it('rejects missing, empty, unknown and duplicated events', () => {
    expect(validateWebhookEvents(undefined)).toEqual([{ field: 'events', message: 'is required' }]);
    expect(validateWebhookEvents('post.failed')).toEqual([
      { field: 'events', message: 'must be an array of event names, got string' },
    ]);
    expect(validateWebhookEvents([])[0]?.field).toBe('events');
    expect(validateWebhookEvents(['post.failed', 'post.deleted', 'post.failed'])).toEqual([
      {
        field: 'events[1]',
        message:
          'must be one of post.created, post.updated, post.cancelled, post.published, post.partial, post.failed, post.target.published, post.target.failed, post.unpublished, post.approval_requested, post.approved, post.rejected, post.metrics_updated, social_account.connected, social_account.expired, social_account.disconnected, comment.received',
      },
      { field: 'events[2]', message: 'is listed more than once' },
    ]);
  });

  it('validateWebhookInput reports url and events problems together', () => {
    expect(
      validateWebhookInput({ url: 'http://x.example.com', events: [] }).map((p) => p.field),
    ).toEqual(['url', 'events']);
  });
});
