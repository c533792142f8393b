import type { DomainError, JobContext, Result } from '../src/index.ts';

export function unwrap<T>(result: Result<T, DomainError>): T {
  if (!result.ok) throw new Error(`expected ok, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

export function errorOf<T>(result: Result<T, DomainError>): DomainError {
  if (result.ok) throw new Error('expected an error, got ok');
  return result.error;
}

export function jobCtx(
  attempt = 1,
  maxAttempts = 5,
  signal = new AbortController().signal,
): JobContext {
  return { attempt, maxAttempts, signal };
}

export const UNKNOWN_ID = '0190a5d2-7a3b-7c4d-8e5f-0123456789ab';
