// Connecting a Discord channel: the URL of one of its webhooks (channel settings >
// Integrations > Webhooks > Copy Webhook URL). The URL is checked (Discord's form, on Discord or
// under DISCORD_API_BASE_URL) and the webhook read with a GET before anything is stored. Its
// token becomes the connection's access token (encrypted like every token); neither the URL nor
// the token is ever put in a message.
import type {
  CredentialsFailure,
  CredentialsOutcome,
  PlatformCredentials,
} from '@social-publisher/domain';
import type { PublisherRuntime } from '../publisher-runtime.ts';
import { unansweredCheck } from '../shared/credential-check.ts';
import { asString, isRecord, isTransientStatus } from '../shared/http.ts';
import { DiscordAnswerError, scrubToken, webhookCall } from './api.ts';
import { codeOf, webhookGone } from './errors.ts';
import type { DiscordSettings } from './settings.ts';
import { parseWebhookUrl, type WebhookRef } from './webhook-url.ts';

/** A connect gives up past this, whatever the per-request timeouts. */
const STEP_DEADLINE_MS = 60_000;
/** Discord's webhook types: only an incoming webhook can be executed with its token. */
const INCOMING = 1;

const refused = (code: string, message: string): CredentialsOutcome => ({
  ok: false,
  error: { code, message, transient: false },
});

function answerFailure(error: DiscordAnswerError): CredentialsFailure {
  const { answer } = error;
  const transient = isTransientStatus(answer.status);
  if (webhookGone(answer)) {
    return {
      code: codeOf(answer),
      message: `Discord does not know this webhook (${answer.message}): it was deleted or its URL reset; copy the URL again from the channel's Integrations settings`,
      transient,
    };
  }
  return { code: codeOf(answer), message: `Discord ${answer.what}: ${answer.message}`, transient };
}

/** The connector POST /social-accounts uses: `webhook_url`; never throws. */
export function createDiscordCredentials(
  settings: DiscordSettings,
  runtime: PublisherRuntime,
): PlatformCredentials {
  async function read(ref: WebhookRef, signal: AbortSignal): Promise<CredentialsOutcome> {
    const answer = await webhookCall(settings.apiBaseUrl, ref, runtime, signal, 'get webhook', {
      method: 'GET',
    });
    const json = isRecord(answer.json) ? answer.json : {};
    const id = asString(json.id);
    const channelId = asString(json.channel_id);
    if (id !== ref.id || channelId === undefined) {
      return refused('invalid_response', 'Discord answered the webhook without its id or channel');
    }
    if (json.type !== undefined && json.type !== INCOMING) {
      return refused(
        'not_incoming_webhook',
        'this webhook cannot be posted to (only incoming webhooks, made in the channel settings, can)',
      );
    }
    const guildId = asString(json.guild_id);
    return {
      ok: true,
      identity: {
        externalId: id,
        displayName: asString(json.name) ?? null,
        tokens: { accessToken: ref.token, refreshToken: null, expiresAt: null, scopes: [] },
        platformData: { channel_id: channelId, ...(guildId ? { guild_id: guildId } : {}) },
      },
    };
  }

  return {
    platform: 'discord',
    fields: [
      {
        name: 'webhook_url',
        description:
          "the channel's webhook URL (channel settings > Integrations > Webhooks > Copy Webhook URL): https://discord.com/api/webhooks/<id>/<token>",
        maxLength: 400,
        secret: true,
      },
    ],
    async connect(fields, signal): Promise<CredentialsOutcome> {
      const ref = parseWebhookUrl(fields.webhook_url ?? '', settings.apiBaseUrl);
      if (!ref) {
        return refused(
          'invalid_webhook_url',
          'webhook_url must be a Discord webhook URL: https://discord.com/api/webhooks/<id>/<token>, nothing after the token',
        );
      }
      const deadline = AbortSignal.timeout(STEP_DEADLINE_MS);
      try {
        return await read(ref, signal ? AbortSignal.any([signal, deadline]) : deadline);
      } catch (error) {
        if (error instanceof DiscordAnswerError) return { ok: false, error: answerFailure(error) };
        return unansweredCheck(error, (text) => scrubToken(text, ref.token));
      }
    },
  };
}
