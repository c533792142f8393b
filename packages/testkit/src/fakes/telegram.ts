// A local Telegram Bot API: `/bot<token>/<method>` (POST JSON or form, or GET with a query)
// answering `{ ok: true, result }` or `{ ok: false, error_code, description, parameters? }`.
// One bot, a few chats it is (or is not) in, the messages it sent. A 429 carries
// `parameters.retry_after` (seconds), as Telegram's do.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  dropConnection,
  type FakeServer,
  listen,
  parseBody,
  type RecordedRequest,
  readBody,
  record,
  ScriptQueue,
  sendJson,
} from './http.ts';

/** An error answer (`error_code` is the HTTP status). */
export interface TelegramApiError {
  status: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

export type TelegramScript =
  /** The next `times` calls (of `method` if given) answer this error. */
  | { error: TelegramApiError; method?: string; times?: number }
  /** The next `times` calls (of `method` if given) get their connection dropped. */
  | { drop: true; method?: string; times?: number }
  /** The next call of `method` is acted on (the message sent), then its connection dropped. */
  | { dropAfterSend: true; method?: string; times?: number };

export interface TelegramBot {
  id: number;
  username: string;
  firstName: string;
  /** `<id>:<secret>`: the token its calls must name. */
  token: string;
}

export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
  /** The bot's membership (getChatMember): `left` / `kicked` chats refuse its messages. */
  botStatus: 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked';
  /** An administrator of a channel may post only with this (default true). */
  canPostMessages?: boolean;
}

/** One message the bot sent, as sent. */
export interface TelegramMessage {
  chatId: number;
  messageId: number;
  method: string;
  text: string | null;
  caption: string | null;
  /** The photo or video URL (sendPhoto / sendVideo), or the album item's. */
  mediaUrl: string | null;
  mediaType: 'photo' | 'video' | null;
  mediaGroupId: string | null;
  replyTo: number | null;
  silent: boolean;
}

export interface FakeTelegramOptions {
  /** Messages the bot may send per chat before every send answers 429 (default unlimited). */
  messageLimit?: number;
  /** The `retry_after` of that 429 (default 7 seconds). */
  retryAfterSeconds?: number;
}

export interface FakeTelegram extends FakeServer {
  bot: TelegramBot;
  /** The chats the fake knows, by id (add or change them freely). */
  chats: Map<number, TelegramChat>;
  /** A public channel the bot administers (`@fakechannel`). */
  channel: TelegramChat;
  /** A private group the bot is a member of. */
  group: TelegramChat;
  messages: TelegramMessage[];
  /** Mutable: past this many messages per chat, sends answer 429. */
  messageLimit: number | undefined;
  /** Further calls with the bot's token answer 401 Unauthorized (the token was revoked). */
  revokeToken(): void;
  script(step: TelegramScript): void;
}

const MAX_TEXT = 4096;
const MAX_CAPTION = 1024;

const error = (status: number, description: string): TelegramApiError => ({ status, description });

const asNumber = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) ? number : undefined;
};

/** A form or query sends nested values as JSON text, as the Bot API reads them. */
function nested(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

const isUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\/[^\s]+$/.test(value);

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<TelegramScript>();
  const bot: TelegramBot = {
    id: 7000000001,
    username: 'fake_publisher_bot',
    firstName: 'Fake Publisher',
    token: '7000000001:AAH-fake-telegram-bot-token-0123456789',
  };
  const channel: TelegramChat = {
    id: -1001234567890,
    type: 'channel',
    title: 'Fake Channel',
    username: 'fakechannel',
    botStatus: 'administrator',
  };
  const group: TelegramChat = {
    id: -4000000001,
    type: 'group',
    title: 'Fake Group',
    botStatus: 'member',
  };
  const chats = new Map<number, TelegramChat>([
    [channel.id, channel],
    [group.id, group],
  ]);
  const messages: TelegramMessage[] = [];
  let revoked = false;
  let nextMessageId = 100;
  let nextGroupId = 1;
  const state = { messageLimit: options.messageLimit };

  type Answer = { result: unknown } | TelegramApiError;

  function chatOf(value: unknown): TelegramChat | undefined {
    if (typeof value === 'string' && value.startsWith('@')) {
      return [...chats.values()].find((chat) => `@${chat.username}` === value);
    }
    const id = asNumber(value);
    return id === undefined ? undefined : chats.get(id);
  }

  const publicChat = (chat: TelegramChat) => ({
    id: chat.id,
    type: chat.type,
    ...(chat.title ? { title: chat.title } : {}),
    ...(chat.username ? { username: chat.username } : {}),
  });

  /** Why the bot cannot send to `chat`, or undefined. */
  function sendRefusal(chat: TelegramChat | undefined): TelegramApiError | undefined {
    if (!chat) return error(400, 'Bad Request: chat not found');
    const where = chat.type === 'channel' ? 'channel' : 'group';
    if (chat.botStatus === 'kicked')
      return error(403, `Forbidden: bot was kicked from the ${where} chat`);
    if (chat.botStatus === 'left')
      return error(403, `Forbidden: bot is not a member of the ${where} chat`);
    if (
      chat.type === 'channel' &&
      (chat.botStatus === 'member' || chat.canPostMessages === false)
    ) {
      return error(400, 'Bad Request: need administrator rights in the channel chat');
    }
    const sent = messages.filter((message) => message.chatId === chat.id).length;
    if (state.messageLimit !== undefined && sent >= state.messageLimit) {
      const retryAfter = options.retryAfterSeconds ?? 7;
      return {
        status: 429,
        description: `Too Many Requests: retry after ${retryAfter}`,
        parameters: { retry_after: retryAfter },
      };
    }
    return undefined;
  }

  function replyOf(
    chat: TelegramChat,
    input: Record<string, unknown>,
  ): number | null | TelegramApiError {
    const parameters = nested(input.reply_parameters) as Record<string, unknown> | undefined;
    const replyTo = asNumber(parameters?.message_id ?? input.reply_to_message_id);
    if (replyTo === undefined) return null;
    const known = messages.some((m) => m.chatId === chat.id && m.messageId === replyTo);
    return known ? replyTo : error(400, 'Bad Request: message to be replied not found');
  }

  function messageJson(message: TelegramMessage, chat: TelegramChat) {
    return {
      message_id: message.messageId,
      date: Math.floor(Date.now() / 1000),
      chat: publicChat(chat),
      ...(message.text !== null ? { text: message.text } : {}),
      ...(message.caption !== null ? { caption: message.caption } : {}),
      ...(message.mediaType === 'photo'
        ? { photo: [{ file_id: `photo-${message.messageId}` }] }
        : {}),
      ...(message.mediaType === 'video'
        ? { video: { file_id: `video-${message.messageId}` } }
        : {}),
      ...(message.mediaGroupId ? { media_group_id: message.mediaGroupId } : {}),
      ...(message.replyTo !== null ? { reply_to_message: { message_id: message.replyTo } } : {}),
    };
  }

  function send(method: string, input: Record<string, unknown>): Answer {
    const chat = chatOf(input.chat_id);
    const refusal = sendRefusal(chat);
    if (refusal || !chat) return refusal ?? error(400, 'Bad Request: chat not found');
    const replyTo = replyOf(chat, input);
    if (replyTo !== null && typeof replyTo === 'object') return replyTo;
    const base = {
      chatId: chat.id,
      method,
      replyTo,
      silent: input.disable_notification === true || input.disable_notification === 'true',
      mediaGroupId: null,
    };
    const make = (fields: Partial<TelegramMessage>): TelegramMessage => ({
      messageId: nextMessageId++,
      text: null,
      caption: null,
      mediaUrl: null,
      mediaType: null,
      ...base,
      ...fields,
    });
    const caption = typeof input.caption === 'string' ? input.caption : null;
    if (caption !== null && caption.length > MAX_CAPTION) {
      return error(400, 'Bad Request: message caption is too long');
    }
    if (method === 'sendMessage') {
      const text = typeof input.text === 'string' ? input.text : '';
      if (text.trim() === '') return error(400, 'Bad Request: message text is empty');
      if (text.length > MAX_TEXT) return error(400, 'Bad Request: message is too long');
      const message = make({ text });
      messages.push(message);
      return { result: messageJson(message, chat) };
    }
    if (method === 'sendPhoto' || method === 'sendVideo') {
      const type = method === 'sendPhoto' ? 'photo' : 'video';
      const url = input[type];
      if (!isUrl(url)) return error(400, 'Bad Request: wrong file identifier/HTTP URL specified');
      const message = make({ caption, mediaUrl: url, mediaType: type });
      messages.push(message);
      return { result: messageJson(message, chat) };
    }
    return sendAlbum(chat, nested(input.media), make);
  }

  function sendAlbum(
    chat: TelegramChat,
    media: unknown,
    make: (fields: Partial<TelegramMessage>) => TelegramMessage,
  ): Answer {
    if (!Array.isArray(media) || media.length < 2 || media.length > 10) {
      return error(400, 'Bad Request: media must include 2-10 items');
    }
    const items = media as Array<Record<string, unknown>>;
    for (const item of items) {
      if (item.type !== 'photo' && item.type !== 'video') {
        return error(400, 'Bad Request: invalid media type');
      }
      if (!isUrl(item.media)) {
        return error(400, 'Bad Request: wrong file identifier/HTTP URL specified');
      }
      if (typeof item.caption === 'string' && item.caption.length > MAX_CAPTION) {
        return error(400, 'Bad Request: message caption is too long');
      }
    }
    const mediaGroupId = `album-${nextGroupId++}`;
    const sent = items.map((item) =>
      make({
        caption: typeof item.caption === 'string' ? item.caption : null,
        mediaUrl: item.media as string,
        mediaType: item.type as 'photo' | 'video',
        mediaGroupId,
      }),
    );
    messages.push(...sent);
    return { result: sent.map((message) => messageJson(message, chat)) };
  }

  function route(method: string, input: Record<string, unknown>): Answer {
    if (method === 'getMe') {
      return {
        result: {
          id: bot.id,
          is_bot: true,
          first_name: bot.firstName,
          username: bot.username,
          can_join_groups: true,
        },
      };
    }
    if (method === 'getChat') {
      const chat = chatOf(input.chat_id);
      if (!chat || (chat.botStatus === 'left' && !chat.username) || chat.botStatus === 'kicked') {
        return error(400, 'Bad Request: chat not found');
      }
      return { result: publicChat(chat) };
    }
    if (method === 'getChatMember') {
      const chat = chatOf(input.chat_id);
      if (!chat) return error(400, 'Bad Request: chat not found');
      if (asNumber(input.user_id) !== bot.id) return error(400, 'Bad Request: user not found');
      return {
        result: {
          user: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
          status: chat.botStatus,
          ...(chat.botStatus === 'administrator'
            ? { can_post_messages: chat.canPostMessages ?? true }
            : {}),
        },
      };
    }
    if (['sendMessage', 'sendPhoto', 'sendVideo', 'sendMediaGroup'].includes(method)) {
      return send(method, input);
    }
    return error(404, 'Not Found');
  }

  const answer = (response: ServerResponse, result: Answer) =>
    'result' in result
      ? sendJson(response, 200, { ok: true, result: result.result })
      : sendJson(response, result.status, {
          ok: false,
          error_code: result.status,
          description: result.description,
          ...(result.parameters ? { parameters: result.parameters } : {}),
        });

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const match = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match) return answer(response, error(404, 'Not Found'));
    const [, token, method = ''] = match;
    if (!/^\d+:[A-Za-z0-9_-]+$/.test(token ?? '')) return answer(response, error(404, 'Not Found'));
    if (token !== bot.token || revoked) return answer(response, error(401, 'Unauthorized'));
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) return answer(response, scripted.error);
    const input = {
      ...recorded.query,
      ...(typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}),
    };
    const result = route(method, input);
    if (scripted && 'dropAfterSend' in scripted) return dropConnection(request);
    return answer(response, result);
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    bot,
    chats,
    channel,
    group,
    messages,
    get messageLimit() {
      return state.messageLimit;
    },
    set messageLimit(value: number | undefined) {
      state.messageLimit = value;
    },
    revokeToken: () => {
      revoked = true;
    },
    script: (step) =>
      scripts.add(
        step,
        (request) => step.method === undefined || request.path.endsWith(`/${step.method}`),
        step.times ?? 1,
      ),
  };
}
