export * from './fakes/index.ts';
export * from './net.ts';
export * from './otlp-receiver.ts';
export * from './pgbouncer.ts';
export * from './postgres.ts';
export * from './redis-cluster.ts';
export * from './redis-sentinel.ts';
export * from './tcp-proxy.ts';
