export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** A new UUID (v7: time-ordered). */
  newId(): string;
}

/**
 * Encrypts secrets at rest (AES-256-GCM). Ciphertext is an opaque string, bound to the row it
 * is stored in (`boundTo`, see `secretBinding`): it decrypts only with the same binding.
 */
export interface TokenCipher {
  encrypt(plaintext: string, boundTo: string): string;
  /** Throws SecretUnreadableError when the ciphertext does not open with `boundTo` and the keys. */
  decrypt(ciphertext: string, boundTo: string): string;
  /** Made by the current key in the current format: nothing to re-encrypt. */
  isCurrent(ciphertext: string): boolean;
}

/** Structured logger (pino-compatible subset). Never pass secrets or tokens. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
