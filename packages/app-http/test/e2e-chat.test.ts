/**
 * Telegram and Discord end to end, in both modes: POST /social-accounts with a bot token and a
 * chat id (getMe, getChat, getChatMember on the fake Bot API) or with a channel's webhook URL (a
 * GET of it on the fake), then posts through those connections (worker -> the real adapter ->
 * the fake): an album and a thread of replies, files streamed as multipart, a 429 honoured as
 * a wait, post.published delivered. Refused credentials are a clear 400; the secrets are never
 * answered nor logged.
 */
import { describe, expect, it } from 'vitest';
import type { PostJson } from '../src/schemas/posts.ts';
import { type Mode, type System, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

interface Connection {
  id: string;
  platform: string;
  external_id: string;
  display_name: string | null;
  status: string;
  sandbox: boolean;
}
interface ErrorJson {
  error: { code: string; message: string; details?: { field: string; message: string }[] };
}

let sequence = 0;
const tag = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`;
const modes: Mode[] = ['production', 'embedded'];

async function publishAndWait(system: System, body: Record<string, unknown>): Promise<PostJson> {
  const response = await system.api.call<{ data: PostJson }>('POST', '/posts', body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  const id = response.body.data.id;
  return waitFor(
    'the post to end',
    async () => {
      const got = await system.api.call<{ data: PostJson }>('GET', `/posts/${id}`);
      return ['published', 'failed', 'partial'].includes(got.body.data.status)
        ? got.body.data
        : undefined;
    },
    20_000,
  );
}

/** A webhook subscribed to post.published at `path` of the receiver. */
async function subscribe(system: System, path: string): Promise<void> {
  const hook = await system.api.call<{ data: { secret: string } }>('POST', '/webhooks', {
    url: system.receiver.url(path),
    events: ['post.published'],
  });
  expect(hook.status).toBe(201);
  system.receiver.register(path, hook.body.data.secret);
}

const published = (system: System, postId: string, path: string) =>
  waitFor('post.published', () =>
    system.receiver.arrivalsFor(postId, path).find((a) => a.event === 'post.published'),
  );

describe.each(modes)('telegram and discord end to end, %s mode', (mode) => {
  const e2e = useSystem(mode);
  const connections = { telegram: '', discord: '' };

  it('telegram: connects a channel by bot token and @username; the token is never shown', async (context) => {
    const system = e2e.orSkip(context);
    const { telegram } = system;
    const created = await system.api.call<{ data: Connection }>('POST', '/social-accounts', {
      platform: 'telegram',
      bot_token: telegram.bot.token,
      chat_id: '@fakechannel',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      platform: 'telegram',
      external_id: String(telegram.channel.id),
      display_name: 'Fake Channel',
      status: 'active',
      sandbox: false,
    });
    connections.telegram = created.body.data.id;
    const secret = telegram.bot.token.split(':')[1] as string;
    expect(JSON.stringify(created.body)).not.toContain(secret);
    const listed = await system.api.call('GET', `/social-accounts/${connections.telegram}`);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(system.logs)).not.toContain(secret);
  });

  it('telegram: a wrong token, a chat the bot cannot see, a missing field: each a clear 400', async (context) => {
    const system = e2e.orSkip(context);
    const wrong = '7000000001:AAH-not-the-token-of-this-bot-zzzzzz';
    const refused = await system.api.call<ErrorJson>('POST', '/social-accounts', {
      platform: 'telegram',
      bot_token: wrong,
      chat_id: '@fakechannel',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('platform_auth_failed');
    expect(refused.body.error.message).toContain('bot token');
    expect(JSON.stringify(refused.body)).not.toContain('not-the-token');
    const unseen = await system.api.call<ErrorJson>('POST', '/social-accounts', {
      platform: 'telegram',
      bot_token: system.telegram.bot.token,
      chat_id: '-100424242',
    });
    expect(unseen.status).toBe(400);
    expect(unseen.body.error.message).toContain('chat not found');
    const missing = await system.api.call<ErrorJson>('POST', '/social-accounts', {
      platform: 'telegram',
      bot_token: system.telegram.bot.token,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'chat_id', message: 'is required for telegram' }],
    });
    expect(JSON.stringify(system.logs)).not.toContain('not-the-token');
  });

  it('telegram: an album, then a thread of replies; post.published with the t.me link', async (context) => {
    const system = e2e.orSkip(context);
    await subscribe(system, '/telegram-published');
    const content = tag('Album');
    const photos = [system.media.url('tg-1.jpg', 2048), system.media.url('tg-2.mp4', 4096)];
    const post = await publishAndWait(system, {
      content,
      media_urls: photos,
      social_account_ids: [connections.telegram],
      thread: [{ content: tag('Reply') }],
      platform_options: { telegram: { disable_notification: true } },
    });
    const target = post.post_targets[0];
    expect(post.status, JSON.stringify(target)).toBe('published');
    const album = system.telegram.messages.filter((m) => m.caption === content);
    expect(album).toHaveLength(1);
    expect(target?.platform_post_id).toBe(String(album[0]?.messageId));
    expect(target?.platform_url).toBe(`https://t.me/fakechannel/${album[0]?.messageId}`);
    const reply = system.telegram.messages.find(
      (m) => String(m.messageId) === target?.thread_post_ids[0],
    );
    expect(reply).toMatchObject({ replyTo: album[0]?.messageId, silent: true });
    const arrival = await published(system, post.id, '/telegram-published');
    expect(arrival.payload.data).toEqual({ published: 1, failed: 0, total: 1 });
  }, 30_000);

  it('telegram: a 429 with retry_after makes the post wait, then it goes out once', async (context) => {
    const system = e2e.orSkip(context);
    system.telegram.script({
      error: {
        status: 429,
        description: 'Too Many Requests: retry after 1',
        parameters: { retry_after: 1 },
      },
      method: 'sendMessage',
    });
    const content = tag('Patient');
    const post = await publishAndWait(system, {
      content,
      social_account_ids: [connections.telegram],
    });
    expect(post.status).toBe('published');
    expect(system.telegram.messages.filter((m) => m.text === content)).toHaveLength(1);
  }, 30_000);

  it('discord: connects a channel by its webhook URL; the URL is never shown', async (context) => {
    const system = e2e.orSkip(context);
    const { discord } = system;
    const created = await system.api.call<{ data: Connection }>('POST', '/social-accounts', {
      platform: 'discord',
      webhook_url: discord.webhookUrl(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      platform: 'discord',
      external_id: discord.webhook.id,
      display_name: discord.webhook.name,
      status: 'active',
    });
    connections.discord = created.body.data.id;
    expect(JSON.stringify(created.body)).not.toContain(discord.webhook.token);
    expect(JSON.stringify(system.logs)).not.toContain(discord.webhook.token);
  });

  it('discord: a URL that is not a webhook, or a deleted webhook, is a 400', async (context) => {
    const system = e2e.orSkip(context);
    const { discord } = system;
    const elsewhere = await system.api.call<ErrorJson>('POST', '/social-accounts', {
      platform: 'discord',
      webhook_url: `https://example.com/api/webhooks/${discord.webhook.id}/${discord.webhook.token}`,
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.message).toContain('webhook_url must be a Discord webhook URL');
    const gone = { ...discord.webhook, id: '1200000000000000404' };
    discord.webhooks.push(gone);
    discord.deleteWebhook(gone.id);
    const deleted = await system.api.call<ErrorJson>('POST', '/social-accounts', {
      platform: 'discord',
      webhook_url: discord.webhookUrl(gone),
    });
    expect(deleted.status).toBe(400);
    expect(deleted.body.error.message).toContain('Unknown Webhook');
    for (const answer of [elsewhere, deleted]) {
      expect(JSON.stringify(answer.body)).not.toContain(discord.webhook.token);
    }
  });

  it('discord: files streamed as multipart, a follow-up message; post.published', async (context) => {
    const system = e2e.orSkip(context);
    await subscribe(system, '/discord-published');
    const content = tag('Files');
    const post = await publishAndWait(system, {
      content,
      media_urls: [system.media.url('dc-1.jpg', 20_000), system.media.url('dc-2.mp4', 50_000)],
      social_account_ids: [connections.discord],
      thread: [{ content: tag('More') }],
    });
    const target = post.post_targets[0];
    expect(post.status, JSON.stringify(target)).toBe('published');
    const sent = system.discord.messages.find((m) => m.id === target?.platform_post_id);
    expect(sent?.content).toBe(content);
    expect(sent?.attachments.map((a) => [a.filename, a.size, a.patternOk])).toEqual([
      ['dc-1.jpg', 20_000, true],
      ['dc-2.mp4', 50_000, true],
    ]);
    const { guildId, channelId } = system.discord.webhook;
    expect(target?.platform_url).toBe(
      `https://discord.com/channels/${guildId}/${channelId}/${target?.platform_post_id}`,
    );
    expect(target?.thread_post_ids).toHaveLength(1);
    const arrival = await published(system, post.id, '/discord-published');
    expect(arrival.payload.data).toEqual({ published: 1, failed: 0, total: 1 });
  }, 30_000);

  it('sandbox connections of both never reach the fakes', async (context) => {
    const system = e2e.orSkip(context);
    const calls = system.telegram.requests.length + system.discord.requests.length;
    for (const platform of ['telegram', 'discord']) {
      const created = await system.api.call<{ data: Connection }>('POST', '/social-accounts', {
        platform,
        sandbox: true,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const post = await publishAndWait(system, {
        content: tag('Sandboxed'),
        social_account_ids: [created.body.data.id],
      });
      expect(post.status).toBe('published');
      expect(post.post_targets[0]?.platform_post_id).toMatch(/^sandbox-/);
    }
    expect(system.telegram.requests.length + system.discord.requests.length).toBe(calls);
  }, 30_000);
});
