export { type BullmqConsumerOptions, createBullmqConsumer } from './consumer.ts';
export type { DashboardServer, QueueDashboard } from './dashboard.ts';
export { createRedisPacer, PACE_SCRIPT, type PacerRedisClient } from './pacer.ts';
export { type BullmqQueue, type BullmqQueueOptions, createBullmqQueue } from './queue.ts';
export {
  DEFAULT_PREFIX,
  DELIVERY_QUEUE,
  type DeliveryJobData,
  PUBLISH_QUEUE,
  type PublishJobData,
  type RedisConnectionInput,
} from './shared.ts';
