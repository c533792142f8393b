/**
 * The processes' logger (API and worker): pino JSON lines. No line may carry a credential: an
 * API key, a JWT, a cookie, an OAuth code, state or token, a webhook secret.
 *
 * - Secret fields are redacted wherever they appear in a logged object, up to three levels
 *   down (pino matches exact depths).
 * - Errors are scrubbed at any depth: an HTTP client's error may hold the request it sent, with
 *   its headers, several levels down.
 * - URLs are logged with the values of credential-like query parameters redacted (an OAuth
 *   callback carries `?code=&state=`), and requests are logged as method, URL and address,
 *   never with their headers.
 */
import type { Config } from '@social-publisher/config';
import { traceLogFields } from '@social-publisher/telemetry';
import pino from 'pino';

const CENSOR = '[redacted]';

const SECRET_FIELDS = [
  'authorization',
  '"x-api-key"',
  'cookie',
  '"set-cookie"',
  'key',
  'rawKey',
  'raw_key',
  'api_key',
  'apiKey',
  'secret',
  'token',
  'access_token',
  'refresh_token',
  'accessToken',
  'refreshToken',
  'password',
  // Credentials a platform connected by credentials takes (Bluesky) and the session it gives.
  'app_password',
  'appPassword',
  'accessJwt',
  'refreshJwt',
  // Telegram's bot token and a Discord webhook URL (its token is part of it).
  'bot_token',
  'botToken',
  'webhook_url',
  'webhookUrl',
  'client_secret',
  'clientSecret',
];

/** Each secret field at the top level and up to three levels down (pino matches exact depths). */
export const REDACT_PATHS: string[] = SECRET_FIELDS.flatMap((field) => {
  const access = field.startsWith('"') ? `[${field}]` : `.${field}`;
  return [
    field.startsWith('"') ? `[${field}]` : field,
    `*${access}`,
    `*.*${access}`,
    `*.*.*${access}`,
  ];
});

const SECRET_NAMES = new Set(SECRET_FIELDS.map((field) => field.replace(/"/g, '').toLowerCase()));

/**
 * Query parameters whose value is, or may be, a credential: OAuth codes, states, verifiers and
 * tokens, keys, secrets, signatures, passwords, sessions.
 */
const CREDENTIAL_PARAMETER =
  /code|state|token|key|secret|password|passwd|verifier|signature|sig$|auth|jwt|session|nonce|credential/i;

/**
 * `url` (a path with its query, or an absolute URL) with the values of credential-like query
 * parameters replaced; everything else is kept as sent, so the line still says what was asked.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const hash = url.indexOf('#', at);
  const query = url.slice(at + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      let name = pair.slice(0, equals);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // An undecodable name is judged as written.
      }
      return CREDENTIAL_PARAMETER.test(name) ? `${pair.slice(0, equals)}=${CENSOR}` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}

/** A copy of `value` with secret fields censored and URLs redacted, at any depth (bounded). */
function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return value.includes('?') ? redactUrl(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value) || depth > 8) return '[omitted]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] =
      SECRET_NAMES.has(name.toLowerCase()) || name.toLowerCase() === 'headers'
        ? CENSOR
        : scrub(item, depth + 1, seen);
  }
  return out;
}

/** A request as a log line shows it: never its headers or body. */
interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
}

export const LOG_SERIALIZERS: pino.LoggerOptions['serializers'] = {
  err: (error: Error) => scrub(pino.stdSerializers.err(error)),
  req: (request: LoggedRequest) => ({
    method: request.method,
    url: typeof request.url === 'string' ? redactUrl(request.url) : undefined,
    ip: request.ip,
  }),
  res: (reply: { statusCode?: number }) => ({ status: reply.statusCode }),
};

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  options: {
    name?: string;
    destination?: pino.DestinationStream;
    /** Tracing is on: each line logged inside a span carries its trace_id and span_id. */
    traceIds?: boolean;
  } = {},
): pino.Logger {
  const pinoOptions: pino.LoggerOptions = {
    level: config.logLevel,
    base: { app: options.name ?? 'api', pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: LOG_SERIALIZERS,
    timestamp: pino.stdTimeFunctions.isoTime,
    // Only with tracing on: without it no line pays for the lookup.
    ...(options.traceIds ? { mixin: traceLogFields } : {}),
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
