export { type AppConfig, type AppOptions, buildApp } from './app.ts';
export { bootstrap, firstUserBanner } from './bootstrap.ts';
export { HttpError, toHttpError } from './errors.ts';
export { createLogger, REDACT_PATHS } from './logger.ts';
export type { RateLimitStore } from './rate-limit/store.ts';
