import { describe, expect, it } from 'vitest';
import {
  validateApiKeyLimit,
  validateApiKeyName,
  validateConnectInput,
  validateEmail,
  validateMemberInput,
  validateName,
  validateWorkspaceName,
} from '../src/index.ts';
import { testCatalog } from './support.ts';

const catalog = testCatalog();

describe('names', () => {
  it('accepts 1-100 characters after trimming', () => {
    expect(validateApiKeyName('ci')).toEqual([]);
    expect(validateApiKeyName(`  ${'k'.repeat(100)}  `)).toEqual([]);
    expect(validateWorkspaceName('Marketing')).toEqual([]);
  });

  it.each([
    [undefined, 'is required'],
    [null, 'is required'],
    [3, 'must be a string, got number'],
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
    ['k'.repeat(101), 'must be at most 100 characters'],
  ])('rejects %j', (value, message) => {
    expect(validateApiKeyName(value)).toEqual([{ field: 'name', message }]);
  });

  it('names the given field', () => {
    expect(validateName('', 'display_name')[0]?.field).toBe('display_name');
  });

  it('limits the number of keys', () => {
    expect(validateApiKeyLimit(9, 10)).toEqual([]);
    expect(validateApiKeyLimit(10, 10)[0]?.message).toMatch(/at most 10 API keys/);
  });
});

describe('connection input', () => {
  const valid = { platform: 'tiktok', externalId: 'open-id', accessToken: 'act' };

  it('accepts a minimal and a full connection', () => {
    expect(validateConnectInput(valid, catalog)).toEqual([]);
    expect(
      validateConnectInput(
        {
          ...valid,
          displayName: 'Me',
          refreshToken: 'rft',
          tokenExpiresAt: '2026-06-01T00:00:00Z',
        },
        catalog,
      ),
    ).toEqual([]);
  });

  it('a sandbox connection takes no token, and a given one is refused', () => {
    expect(validateConnectInput({ platform: 'twitter', sandbox: true }, catalog)).toEqual([]);
    expect(
      validateConnectInput(
        { platform: 'twitter', sandbox: true, accessToken: 'x', tokenExpiresAt: 'soon' },
        catalog,
      ).map((p) => p.field),
    ).toEqual(['access_token', 'token_expires_at']);
    expect(
      validateConnectInput({ platform: 'twitter', sandbox: 'yes' }, catalog).map((p) => p.field),
    ).toContain('sandbox');
  });

  it('reports every problem with snake_case fields', () => {
    expect(
      validateConnectInput(
        {
          platform: 'myspace',
          externalId: ' ',
          accessToken: '',
          displayName: 4,
          refreshToken: 5,
          tokenExpiresAt: 'soon',
        },
        catalog,
      ).map((p) => p.field),
    ).toEqual([
      'platform',
      'external_id',
      'access_token',
      'display_name',
      'refresh_token',
      'token_expires_at',
    ]);
    expect(validateConnectInput({ ...valid, externalId: 'x'.repeat(201) }, catalog)).toEqual([
      { field: 'external_id', message: 'must be at most 200 characters' },
    ]);
  });
});

describe('email and member input', () => {
  it('checks emails loosely', () => {
    expect(validateEmail(undefined)).toEqual([]);
    expect(validateEmail('a@b.example')).toEqual([]);
    expect(validateEmail('nope')).toEqual([
      { field: 'email', message: 'must be an email address' },
    ]);
    expect(validateEmail(7)[0]?.field).toBe('email');
  });

  it('checks member input', () => {
    expect(
      validateMemberInput({ userId: '0190a5d2-7a3b-7c4d-8e5f-0123456789ab', role: 'admin' }),
    ).toEqual([]);
    expect(validateMemberInput({ userId: 'x', role: 'boss' }).map((p) => p.field)).toEqual([
      'user_id',
      'role',
    ]);
  });
});
