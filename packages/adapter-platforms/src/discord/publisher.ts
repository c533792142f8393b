import type {
  PlatformData,
  PlatformPublisher,
  PublishOutcome,
  PublishRequest,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { sendFollowUps } from '../shared/follow-ups.ts';
import { uploadTimeoutMs } from '../shared/http.ts';
import { intentAt, outcomeUnknown, sendOnce } from '../shared/intent.ts';
import { withRedirectingMedia } from '../shared/media-dispatcher.ts';
import { createMediaFetcher } from '../shared/media-fetch.ts';
import { optionsOf } from '../shared/options.ts';
import { fail, PublishFailure } from '../shared/outcome.ts';
import { progressPublisher } from '../shared/progress-publisher.ts';
import {
  DiscordAnswerError,
  type DiscordMessage,
  LABEL,
  messageOf,
  type WebhookCall,
  webhookCall,
} from './api.ts';
import { discordFailure } from './errors.ts';
import { messageForm } from './files.ts';
import { usernameOf } from './options.ts';
import { type DiscordProgress, freshProgress, readProgress } from './progress.ts';
import type { DiscordSettings } from './settings.ts';
import { validateDiscord } from './validate.ts';

/** The intent step of the main message, of follow-up n (`thread_0`, ...). */
const MAIN_MESSAGE = 'message';
const FOLLOW_UP = 'thread_';

interface Part {
  content: string;
  mediaUrls: readonly string[];
}

/**
 * Discord: each part of the post is one execution of the connection's webhook (its id is the
 * connection's external id, its token the access token), files attached as multipart; a thread's
 * follow-ups are further messages in the channel. A webhook has no idempotency key and cannot
 * read the channel: a send whose answer was lost ends `outcome_unknown`, never sent again.
 */
export function createDiscordPublisher(
  settings: DiscordSettings,
  baseRuntime: PublisherRuntime,
): PlatformPublisher {
  const runtime = withRedirectingMedia(baseRuntime);

  /** The body of one message: JSON for text alone, else the multipart form with its files. */
  async function bodyOf(request: PublishRequest, part: Part): Promise<WebhookCall['body']> {
    const username = usernameOf(optionsOf(request.post.platformOptions, 'discord'));
    const payload = { content: part.content, ...(username ? { username } : {}) };
    if (part.mediaUrls.length === 0) return { json: payload };
    const media = createMediaFetcher(runtime, request.signal);
    const form = await messageForm(media, payload, part.mediaUrls);
    return { form: form.body, contentType: form.contentType, length: form.length };
  }

  /** Sends one part under its intent; `counted`: the call the connection's pacing counts. */
  async function sendPart(
    request: PublishRequest,
    step: string,
    part: Part,
    counted = false,
  ): Promise<DiscordMessage> {
    const earlier = intentAt(request, step);
    if (earlier) throw new PublishFailure(outcomeUnknown(LABEL, earlier));
    const ref = { id: request.connection.externalId, token: request.connection.accessToken };
    if (counted) await request.beforeCountedCall();
    return sendOnce(request, step, async () => {
      const body = await bodyOf(request, part);
      try {
        const answer = await webhookCall(
          settings.apiBaseUrl,
          ref,
          runtime,
          request.signal,
          'execute webhook',
          {
            method: 'POST',
            wait: true,
            body,
            timeoutMs: uploadTimeoutMs(runtime.requestTimeoutMs),
          },
        );
        const message = messageOf(answer.json);
        if (message) return message;
        throw fail('invalid_response', 'Discord answered the webhook without a message', false);
      } catch (error) {
        if (error instanceof DiscordAnswerError) throw discordFailure(error.answer);
        throw error;
      }
    });
  }

  async function run(
    request: PublishRequest,
    stored: DiscordProgress | null,
  ): Promise<PublishOutcome> {
    const progress = stored ?? freshProgress();
    const save = () => request.saveProgress({ ...progress, threadIds: [...progress.threadIds] });
    if (progress.messageId === null) {
      const main = await sendPart(request, MAIN_MESSAGE, request.post, true);
      progress.messageId = main.id;
      progress.channelId = main.channelId;
    }
    const messageId = progress.messageId;
    const published = publishedAs(messageId, progress.channelId, request.connection.platformData);
    const mainStored = stored?.messageId === messageId;
    // Webhooks cannot reply: each follow-up is a further message.
    return sendFollowUps(
      request,
      published,
      { sent: progress.threadIds, mainStored, save },
      async (part, index) => (await sendPart(request, `${FOLLOW_UP}${index}`, part)).id,
    );
  }

  return progressPublisher({ platform: 'discord', validate: validateDiscord, readProgress, run });
}

/** `https://discord.com/channels/<guild>/<channel>/<message>`: only for a server's channel. */
export function messageUrl(
  messageId: string,
  channelId: string | null,
  data: PlatformData | null,
): string | null {
  const guild = data?.guild_id;
  if (typeof guild !== 'string' || guild === '' || channelId === null) return null;
  return `https://discord.com/channels/${guild}/${channelId}/${messageId}`;
}

const publishedAs = (id: string, channelId: string | null, data: PlatformData | null) =>
  ({
    kind: 'published',
    platformPostId: id,
    platformUrl: messageUrl(id, channelId, data),
  }) satisfies PublishOutcome;
