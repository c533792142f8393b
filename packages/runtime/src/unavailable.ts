/**
 * Whether the worker waits `error` out as an outage (a job retried without spending an
 * attempt, a periodic pass logged at warn) rather than treating it as a bug: an outage an
 * adapter reported (`DependencyUnavailableError`, its cause or itself), or a transport failure
 * that reached the worker untranslated (an adapter without translation, an in-memory store in
 * tests failing with a socket error). Which shapes are transport failures is known in one
 * place, the domain's `isTransportFailure`, which the adapters translate with.
 */
import { isTransportFailure, outageOf } from '@social-publisher/domain';

export function isDependencyUnavailable(error: unknown): boolean {
  return outageOf(error) !== undefined || isTransportFailure(error);
}
