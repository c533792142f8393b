// The pieces every Meta network shares; the Facebook and Instagram suites exercise them against
// their fakes, this file pins what a new Meta network may rely on.
import { describe, expect, it } from 'vitest';
import { graphStepError, graphUrl, versionedGraphBase } from '../src/meta/graph-api.ts';

describe('Graph API plumbing', () => {
  it('puts the version under the base URL, with its v', () => {
    expect(versionedGraphBase('https://graph.example', 'v21.0')).toBe(
      'https://graph.example/v21.0',
    );
    expect(versionedGraphBase('https://graph.example', '21.0')).toBe('https://graph.example/v21.0');
    expect(
      graphUrl('https://graph.example/v21.0', '/me', { fields: 'id', access_token: 't' }).href,
    ).toBe('https://graph.example/v21.0/me?fields=id&access_token=t');
  });

  it('ends a connect on 190, retries 5xx/429/is_transient, keeps code, message and subcode', () => {
    const graph = (error: Record<string, unknown>) => ({ error });
    expect(
      graphStepError(400, graph({ code: 190, message: 'Session expired' }), 'Meta me'),
    ).toMatchObject({
      code: '190',
      kind: 'refused',
      message: 'Meta me: Session expired',
    });
    expect(
      graphStepError(
        400,
        graph({ code: 100, error_subcode: 36009, message: 'Code used' }),
        'Meta exchange',
      ),
    ).toMatchObject({
      code: '100',
      kind: 'error',
      message: 'Meta exchange: Code used (subcode 36009)',
    });
    expect(graphStepError(400, graph({ code: 2, is_transient: true }), 'Meta me')).toMatchObject({
      code: '2',
      kind: 'failed',
      message: 'Meta me: error 2',
    });
    expect(graphStepError(503, undefined, 'Meta me')).toMatchObject({
      code: 'http_503',
      kind: 'failed',
      message: 'Meta me: unexpected answer (HTTP 503)',
    });
    expect(graphStepError(429, graph({ code: 4 }), 'Meta me').kind).toBe('failed');
    expect(graphStepError(404, {}, 'Meta me')).toMatchObject({ code: 'http_404', kind: 'error' });
  });
});
