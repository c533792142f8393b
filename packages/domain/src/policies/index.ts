export * from './backoff.ts';
export * from './job-retry.ts';
export * from './metrics-schedule.ts';
export * from './pacing.ts';
export * from './retry-after.ts';
