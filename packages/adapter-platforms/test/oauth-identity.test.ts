// How a connector's identity calls fail: what a new platform's connector relies on.
import { describe, expect, it } from 'vitest';
import { identityError } from '../src/shared/oauth-identity.ts';

describe('identityError', () => {
  it("keeps the platform's code and message, else names the HTTP status", () => {
    expect(identityError('Acme me', 400, { code: 'bad_scope', message: 'No.' })).toMatchObject({
      code: 'bad_scope',
      message: 'Acme me: No.',
      kind: 'error',
    });
    expect(identityError('Acme me', 403, { code: 'forbidden' })).toMatchObject({
      code: 'forbidden',
      message: 'Acme me: forbidden',
    });
    expect(identityError('Acme me', 404, {})).toMatchObject({
      code: 'http_404',
      message: 'Acme me: unexpected answer (HTTP 404)',
      kind: 'error',
    });
  });

  it('5xx, 429 and a transient platform error are tried again; a rejected token is refused', () => {
    expect(identityError('Acme me', 503, {}).kind).toBe('failed');
    expect(identityError('Acme me', 429, { code: 'slow_down' }).kind).toBe('failed');
    expect(identityError('Acme me', 400, { transient: true }).kind).toBe('failed');
    expect(identityError('Acme me', 401, { refused: true }).kind).toBe('refused');
    expect(identityError('Acme me', 401, {}).kind).toBe('error');
  });
});
