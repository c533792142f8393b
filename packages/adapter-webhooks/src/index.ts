export { parseRetryAfter } from './retry-after.ts';
export {
  type ClosableWebhookSender,
  createWebhookSender,
  type WebhookSenderOptions,
} from './sender.ts';
