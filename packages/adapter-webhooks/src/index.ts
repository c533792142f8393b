export {
  type ClosableWebhookSender,
  createWebhookSender,
  type WebhookSenderOptions,
} from './sender.ts';
