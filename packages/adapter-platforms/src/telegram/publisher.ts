import type {
  PlatformData,
  PlatformPublisher,
  PublishOutcome,
  PublishRequest,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { sendFollowUps } from '../shared/follow-ups.ts';
import { intentAt, outcomeUnknown, sendOnce } from '../shared/intent.ts';
import { assertMediaAllowed } from '../shared/media-guard.ts';
import { optionsOf } from '../shared/options.ts';
import { PublishFailure } from '../shared/outcome.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import { botCall, LABEL, mapped } from './bot-api.ts';
import { messageIdOf, type PartToSend, sendCallOf } from './messages.ts';
import { silentOf } from './options.ts';
import { freshProgress, readProgress, type TelegramProgress } from './progress.ts';
import type { TelegramSettings } from './settings.ts';
import { validateTelegram } from './validate.ts';

/** The intent step of the main message, of follow-up n (`thread_0`, ...). */
const MAIN_MESSAGE = 'message';
const FOLLOW_UP = 'thread_';

/**
 * Telegram: the bot (the connection's token) sends each part of the post to the chat (the
 * connection's external id); follow-ups answer the message before them. Telegram has no
 * idempotency key and a bot cannot read a chat's history: a send whose answer was lost ends
 * `outcome_unknown`, never sent again.
 */
export function createTelegramPublisher(
  settings: TelegramSettings,
  runtime: PublisherRuntime,
): PlatformPublisher {
  /** Sends one part under its intent; `counted`: the call the connection's pacing counts. */
  async function sendPart(
    request: PublishRequest,
    step: string,
    part: PartToSend,
    replyTo: string | undefined,
    counted = false,
  ): Promise<string> {
    const earlier = intentAt(request, step);
    if (earlier) throw new PublishFailure(outcomeUnknown(LABEL, earlier));
    // Telegram fetches the media itself; never hand it a URL our own guard refuses.
    for (const url of part.mediaUrls) await assertMediaAllowed(url, runtime, request.signal);
    const options = optionsOf(request.post.platformOptions, 'telegram');
    const call = sendCallOf(part, {
      chatId: request.connection.externalId,
      replyTo,
      disableNotification: silentOf(options),
    });
    if (counted) await request.beforeCountedCall();
    const token = request.connection.accessToken;
    const result = await sendOnce(request, step, () =>
      mapped(() =>
        botCall(settings.apiBaseUrl, token, runtime, request.signal, {
          method: call.method,
          params: call.params,
        }),
      ),
    );
    return messageIdOf(call.method, result);
  }

  async function run(
    request: PublishRequest,
    stored: TelegramProgress | null,
  ): Promise<PublishOutcome> {
    const progress = stored ?? freshProgress();
    const save = () => request.saveProgress({ ...progress, threadIds: [...progress.threadIds] });
    if (progress.messageId === null) {
      progress.messageId = await sendPart(request, MAIN_MESSAGE, request.post, undefined, true);
    }
    const messageId = progress.messageId;
    const published = publishedAs(messageId, request.connection.platformData);
    const mainStored = stored?.messageId === messageId;
    // Each follow-up answers the message before it.
    return sendFollowUps(
      request,
      published,
      { sent: progress.threadIds, mainStored, save },
      (part, index, previous) => sendPart(request, `${FOLLOW_UP}${index}`, part, previous),
    );
  }

  return progressPublisher({
    platform: 'telegram',
    validate: validateTelegram,
    readProgress,
    run,
  });
}

/**
 * A message has a public link only in a chat with a public username (a channel or a public
 * group): `https://t.me/<username>/<message id>`. Private chats and groups have none.
 */
export function messageUrl(messageId: string, data: PlatformData | null): string | null {
  const username = data?.chat_username;
  if (typeof username !== 'string' || username === '' || data?.chat_type === 'private') {
    return null;
  }
  return `https://t.me/${username}/${messageId}`;
}

const publishedAs = (id: string, data: PlatformData | null) =>
  ({
    kind: 'published',
    platformPostId: id,
    platformUrl: messageUrl(id, data),
  }) satisfies PublishOutcome;
