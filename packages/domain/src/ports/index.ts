export type * from './media-probe.ts';
export type * from './metrics.ts';
export type * from './oauth.ts';
export type * from './platform.ts';
export type * from './queue.ts';
export type * from './storage.ts';
export type * from './system.ts';
export type * from './webhook-sender.ts';
