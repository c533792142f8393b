export * from './fakes/index.ts';
export * from './postgres.ts';
