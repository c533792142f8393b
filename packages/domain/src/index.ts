export * from './crypto.ts';
export * from './deps.ts';
export * from './errors.ts';
export * from './model.ts';
export * from './outcome.ts';
export type * from './ports/index.ts';
export * from './result.ts';
export * from './rules/index.ts';
export * from './use-cases/index.ts';
