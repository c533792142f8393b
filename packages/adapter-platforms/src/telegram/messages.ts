// Which Bot API method sends one part of a post (the main message or a follow-up) and with what:
// text alone is sendMessage, one photo or video is sendPhoto / sendVideo with the URL and the
// text as caption, 2 to 10 media are one sendMediaGroup (an album) captioned by its first item.
// Telegram fetches every media URL itself.

import { isRecord } from '../shared/http.ts';
import { mediaKindOf } from '../shared/media.ts';
import { fail } from '../shared/outcome.ts';

export interface TelegramSend {
  method: 'sendMessage' | 'sendPhoto' | 'sendVideo' | 'sendMediaGroup';
  params: Record<string, unknown>;
}

export interface PartToSend {
  content: string;
  mediaUrls: readonly string[];
}

/** How the message is sent: the chat, a message it answers, notification on or off. */
export interface SendContext {
  chatId: string;
  replyTo?: string | undefined;
  disableNotification?: boolean | undefined;
}

/** The call that sends `part` to the chat. */
export function sendCallOf(part: PartToSend, context: SendContext): TelegramSend {
  const common: Record<string, unknown> = {
    chat_id: context.chatId,
    ...(context.disableNotification ? { disable_notification: true } : {}),
    ...(context.replyTo === undefined
      ? {}
      : { reply_parameters: { message_id: Number(context.replyTo) } }),
  };
  const text = part.content;
  const [first, ...more] = part.mediaUrls;
  if (first === undefined) {
    return { method: 'sendMessage', params: { ...common, text } };
  }
  if (more.length === 0) {
    const photo = mediaKindOf(first) === 'photo';
    return photo
      ? { method: 'sendPhoto', params: { ...common, photo: first, caption: text } }
      : { method: 'sendVideo', params: { ...common, video: first, caption: text } };
  }
  const media = part.mediaUrls.map((url, index) => ({
    type: mediaKindOf(url),
    media: url,
    ...(index === 0 && text !== '' ? { caption: text } : {}),
  }));
  return { method: 'sendMediaGroup', params: { ...common, media } };
}

/**
 * The id of the message a send created: `result.message_id`, or the first of the album
 * sendMediaGroup answers (an array of messages).
 */
export function messageIdOf(method: TelegramSend['method'], result: unknown): string {
  const message = Array.isArray(result) ? result[0] : result;
  const id = isRecord(message) ? message.message_id : undefined;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  throw fail('invalid_response', `Telegram ${method} answered no message_id`, false);
}
