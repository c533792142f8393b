/**
 * A destination the guard will not connect to: a refused address (literal or resolved), or a
 * URL refused before any connection (scheme, credentials). Retrying cannot help.
 *
 * `reason` (and so `message`) is what a client may read: it says that the host is, or resolves
 * to, a private or internal address, never which address nor its range, so refusals cannot be
 * used to map the internal network. `detail` names both, for the server's log only.
 */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'SP_ADDRESS_REFUSED';
  /** Why, for the client: `internal.example resolves to a private or internal address`. */
  readonly reason: string;
  /** Why, for the server's log: `address 10.0.0.5 of internal.example is private`. */
  readonly detail: string;

  constructor(reason: string, detail: string = reason) {
    super(`refused: ${reason}`);
    this.reason = reason;
    this.detail = detail;
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

/**
 * The client-facing reasons of an address refusal. They never carry the address or its range
 * (loopback, private, metadata...): those go to the server's log, through `detail`.
 */
export const refusalReasons = {
  /** An IP literal, or a name that means the local machine (`localhost`). */
  address: (host: string | null): string =>
    host === null
      ? 'the host is a private or internal address'
      : `host ${host} is a private or internal address`,
  /** A name that resolves to at least one refused address. */
  resolved: (host: string): string => `${host} resolves to a private or internal address`,
} as const;
