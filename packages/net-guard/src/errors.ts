/**
 * A destination the guard will not connect to: a refused address (literal or resolved), or a
 * URL refused before any connection (scheme, credentials). Retrying cannot help.
 */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'SP_ADDRESS_REFUSED';
  /** Why, as one sentence: `address 10.0.0.5 of internal.example is private`. */
  readonly reason: string;

  constructor(reason: string) {
    super(`refused: ${reason}`);
    this.reason = reason;
  }
}

/** The host name could not be resolved (NXDOMAIN, SERVFAIL, timeout). May succeed later. */
export class HostResolutionError extends Error {
  override readonly name = 'HostResolutionError';
  readonly code = 'SP_HOST_RESOLUTION';
  readonly hostname: string;

  constructor(hostname: string, detail: string, options?: { cause?: unknown }) {
    super(`could not resolve ${hostname}: ${detail}`, options);
    this.hostname = hostname;
  }
}

/** Finds an AddressRefusedError in an error or its `cause` chain (undici may wrap errors). */
export function findRefusal(error: unknown): AddressRefusedError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current != null; depth++) {
    if (current instanceof AddressRefusedError) return current;
    if (
      typeof current === 'object' &&
      (current as { code?: unknown }).code === 'SP_ADDRESS_REFUSED' &&
      typeof (current as { reason?: unknown }).reason === 'string'
    ) {
      return current as AddressRefusedError;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}
