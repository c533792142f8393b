// Connecting a Telegram chat: a bot token (from @BotFather) and the chat the bot posts to. Both
// are checked before anything is stored: getMe (the token), getChat (the chat, as the bot sees
// it) and getChatMember (the bot is in it and, in a channel, may post). The token is the
// connection's access token (encrypted like every token); it is never put in a message.
import type {
  CredentialsFailure,
  CredentialsOutcome,
  PlatformCredentials,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { unansweredCheck } from '../shared/credential-check.ts';
import { asString, isRecord, isTransientStatus } from '../shared/http.ts';
import { botCall, codeOf, scrubToken, TelegramAnswerError } from './bot-api.ts';
import type { TelegramSettings } from './settings.ts';

/** `<bot id>:<secret>`, as @BotFather gives it. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;
/** A numeric chat id (groups and channels are negative) or a public `@username`. */
const CHAT_ID = /^(?:-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

/** A connect or its checks give up past this, whatever the per-request timeouts. */
const STEP_DEADLINE_MS = 60_000;

interface Chat {
  id: string;
  type: string;
  title: string | undefined;
  username: string | undefined;
  firstName: string | undefined;
}

const refused = (code: string, message: string): CredentialsOutcome => ({
  ok: false,
  error: { code, message, transient: false },
});

function chatOf(result: unknown): Chat | null {
  if (!isRecord(result)) return null;
  const id = asString(result.id);
  const type = asString(result.type);
  if (id === undefined || type === undefined) return null;
  return {
    id,
    type,
    title: asString(result.title),
    username: asString(result.username),
    firstName: asString(result.first_name),
  };
}

/** Why the bot cannot post in the chat, from its membership (null: it can). */
function membershipProblem(chat: Chat, member: unknown): string | null {
  const status = isRecord(member) ? asString(member.status) : undefined;
  if (status === 'left' || status === 'kicked') {
    return 'the bot is not a member of this chat: add it to the group or channel first';
  }
  if (chat.type === 'channel') {
    const admin = status === 'creator' || status === 'administrator';
    const canPost = isRecord(member) && member.can_post_messages !== false;
    if (!admin || !canPost) {
      return 'in a channel the bot must be an administrator allowed to post messages';
    }
  }
  if (status === 'restricted' && isRecord(member) && member.can_send_messages === false) {
    return 'the bot is not allowed to send messages in this group';
  }
  return null;
}

/** A Bot API refusal at connect, in words that say what to fix. */
function answerFailure(error: TelegramAnswerError): CredentialsFailure {
  const { method, status, description } = error.answer;
  const transient = isTransientStatus(status);
  const code = codeOf(status);
  if (method === 'getMe' && (status === 401 || status === 404)) {
    return {
      code,
      message: `Telegram does not accept this bot token (${description}): copy it again from @BotFather`,
      transient,
    };
  }
  if (method !== 'getMe' && (status === 400 || status === 403)) {
    return {
      code,
      message: `the bot cannot see this chat (${description}): check chat_id and add the bot to the group or channel first`,
      transient,
    };
  }
  return { code, message: `Telegram ${method}: ${description}`, transient };
}

/** The connector POST /social-accounts uses: `bot_token` and `chat_id`; never throws. */
export function createTelegramCredentials(
  settings: TelegramSettings,
  runtime: PublisherRuntime,
): PlatformCredentials {
  async function check(token: string, chatId: string, signal: AbortSignal) {
    const call = (method: string, params?: Record<string, unknown>) =>
      botCall(settings.apiBaseUrl, token, runtime, signal, {
        method,
        ...(params ? { params } : {}),
      });
    const me = await call('getMe');
    const botId = isRecord(me) ? asString(me.id) : undefined;
    const chat = chatOf(await call('getChat', { chat_id: chatId }));
    if (botId === undefined || chat === null) {
      return refused('invalid_response', 'Telegram answered getMe or getChat without an id');
    }
    if (chat.type !== 'private') {
      const member = await call('getChatMember', { chat_id: chat.id, user_id: Number(botId) });
      const problem = membershipProblem(chat, member);
      if (problem) return refused('bot_cannot_post', problem);
    }
    const username = isRecord(me) ? asString(me.username) : undefined;
    return {
      ok: true as const,
      identity: {
        externalId: chat.id,
        displayName:
          chat.title ?? (chat.username ? `@${chat.username}` : undefined) ?? chat.firstName ?? null,
        tokens: { accessToken: token, refreshToken: null, expiresAt: null, scopes: [] },
        platformData: {
          chat_type: chat.type,
          ...(chat.username ? { chat_username: chat.username } : {}),
          ...(username ? { bot_username: username } : {}),
        },
      },
    };
  }

  return {
    platform: 'telegram',
    fields: [
      {
        name: 'bot_token',
        description:
          "the bot's token from @BotFather (123456:ABC-...); the bot must be in the chat (an administrator allowed to post, in a channel)",
        maxLength: 200,
        secret: true,
      },
      {
        name: 'chat_id',
        description:
          "the chat the bot posts to: its numeric id (-100... for channels and supergroups) or a public channel's @username",
        maxLength: 64,
        secret: false,
      },
    ],
    async connect(fields, signal): Promise<CredentialsOutcome> {
      const token = (fields.bot_token ?? '').trim();
      const chatId = (fields.chat_id ?? '').trim();
      if (!BOT_TOKEN.test(token)) {
        return refused(
          'invalid_bot_token',
          'bot_token is not a bot token (<bot id>:<secret>, as @BotFather gives it)',
        );
      }
      if (!CHAT_ID.test(chatId)) {
        return refused(
          'invalid_chat_id',
          'chat_id must be a numeric chat id or a public @username',
        );
      }
      const deadline = AbortSignal.timeout(STEP_DEADLINE_MS);
      try {
        return await check(token, chatId, signal ? AbortSignal.any([signal, deadline]) : deadline);
      } catch (error) {
        if (error instanceof TelegramAnswerError) return { ok: false, error: answerFailure(error) };
        return unansweredCheck(error, (text) => scrubToken(text, token));
      }
    },
  };
}
