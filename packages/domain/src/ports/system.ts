export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  /** A new UUID (v7: time-ordered). */
  newId(): string;
}

/** Encrypts tokens at rest (AES-256-GCM in production). Ciphertext is an opaque string. */
export interface TokenCipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

/** Structured logger (pino-compatible subset). Never pass secrets or tokens. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
