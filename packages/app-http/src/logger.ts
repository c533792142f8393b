/**
 * The process logger: pino JSON lines. Credentials, tokens and secrets are redacted wherever
 * they would appear in a logged object (headers, bodies, errors), so a careless log call
 * cannot leak them.
 */
import type { Config } from '@social-publisher/config';
import pino from 'pino';

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

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  options: { name?: string; destination?: pino.DestinationStream } = {},
): pino.Logger {
  const pinoOptions: pino.LoggerOptions = {
    level: config.logLevel,
    base: { app: options.name ?? 'api', pid: process.pid },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
