/** The process logger is shared with the worker: it lives in the runtime. */
export { createLogger, REDACT_PATHS, redactUrl } from '@social-publisher/runtime';
