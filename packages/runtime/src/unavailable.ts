/**
 * Whether an error means a dependency (the database, Redis) cannot be reached right now, as
 * opposed to a bug: such requests answer 503 `service_unavailable` with Retry-After, and the
 * client retries. The knowledge is of transports, not of one adapter: Node's socket errors,
 * PostgreSQL's SQLSTATE classes 08 (connection exception) and 57P (operator intervention: the
 * server is shutting down or starting), and the connection-loss messages of pg and ioredis,
 * which carry no code.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const LOST_CONNECTION = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  /connection is closed/i,
  /reached the max retries per request limit/i,
  /stream isn't writeable/i,
];

function codeOf(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const code = codeOf(error);
  if (code !== undefined) {
    if (SOCKET_CODES.has(code)) return true;
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && LOST_CONNECTION.some((pattern) => pattern.test(message))) {
    return true;
  }
  // pg's connect errors arrive as AggregateError (one per address) or with a cause.
  const { errors, cause } = error as { errors?: unknown; cause?: unknown };
  if (Array.isArray(errors) && errors.some((inner) => isDependencyUnavailable(inner, depth + 1))) {
    return true;
  }
  return cause !== undefined && cause !== error && isDependencyUnavailable(cause, depth + 1);
}
