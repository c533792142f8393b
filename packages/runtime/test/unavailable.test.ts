import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable } from '../src/unavailable.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDependencyUnavailable: an outage, not a bug', () => {
  it.each([
    ['refused', coded('ECONNREFUSED')],
    ['reset', coded('ECONNRESET')],
    ['SQLSTATE 08006 connection failure', coded('08006')],
    ['SQLSTATE 57P01 admin shutdown', coded('57P01')],
    ['SQLSTATE 57P03 cannot connect now', coded('57P03')],
    ['pg connection lost', new Error('Connection terminated unexpectedly')],
    ['pg pool timeout', new Error('timeout exceeded when trying to connect')],
    ['ioredis closed', new Error('Connection is closed.')],
    ['AggregateError of refusals', new AggregateError([coded('ECONNREFUSED')], 'connect')],
    ['wrapped in a cause', new Error('query failed', { cause: coded('ETIMEDOUT') })],
  ])('%s: yes', (_name, error) => {
    expect(isDependencyUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', coded('23505')],
    ['a syntax error', coded('42601')],
    ['a TypeError', new TypeError('undefined is not a function')],
    ['a string', 'boom'],
    ['null', null],
  ])('%s: no', (_name, error) => {
    expect(isDependencyUnavailable(error)).toBe(false);
  });
});
