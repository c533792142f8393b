import { describe, expect, it } from 'vitest';
import {
  DependencyUnavailableError,
  isTransportFailure,
  outageOf,
  translateOutage,
} from '../src/index.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('translateOutage: what an adapter throws', () => {
  it('a transport failure becomes a DependencyUnavailableError naming the dependency, the original as cause', () => {
    const refused = coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    const translated = translateOutage('database', refused);
    expect(translated).toBeInstanceOf(DependencyUnavailableError);
    const outage = translated as DependencyUnavailableError;
    expect(outage.dependency).toBe('database');
    expect(outage.cause).toBe(refused);
    expect(outage.message).toBe('the database is unreachable: connect ECONNREFUSED 127.0.0.1:5432');
  });

  it('any other error leaves as it came', () => {
    const unique = coded('23505', 'duplicate key value');
    expect(translateOutage('database', unique)).toBe(unique);
    const bug = new TypeError('undefined is not a function');
    expect(translateOutage('queue', bug)).toBe(bug);
    expect(translateOutage('pacer', 'a string')).toBe('a string');
  });

  it('an outage already reported is not wrapped twice', () => {
    const outage = new DependencyUnavailableError('queue', new Error('Connection is closed.'));
    expect(translateOutage('database', outage)).toBe(outage);
  });
});

describe('outageOf: the outage an error reports', () => {
  const outage = new DependencyUnavailableError('pacer', coded('ETIMEDOUT'));

  it('finds the error itself or a cause of it', () => {
    expect(outageOf(outage)).toBe(outage);
    const wrapped = new Error('database migrations failed', { cause: outage });
    expect(outageOf(new Error('start failed', { cause: wrapped }))).toBe(outage);
  });

  it('a raw transport failure is not an outage reported by an adapter', () => {
    expect(outageOf(coded('ECONNREFUSED'))).toBeUndefined();
    expect(outageOf(new Error('boom'))).toBeUndefined();
    expect(outageOf(null)).toBeUndefined();
  });

  it('stops at a cause that is its own error', () => {
    const looped = new Error('loop');
    (looped as { cause?: unknown }).cause = looped;
    expect(outageOf(looped)).toBeUndefined();
  });
});

describe('isTransportFailure reads the causes and an AggregateError', () => {
  it.each([
    ['a SQLSTATE 08 code', coded('08001'), true],
    ['an AggregateError of refusals', new AggregateError([coded('ECONNREFUSED')], ''), true],
    ['a cause', new Error('query failed', { cause: coded('EPIPE') }), true],
    ['an undefined table', coded('42P01'), false],
  ])('%s', (_name, error, expected) => {
    expect(isTransportFailure(error)).toBe(expected);
  });
});
