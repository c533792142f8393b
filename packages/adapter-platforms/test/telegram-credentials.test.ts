// Connecting a Telegram chat by bot token and chat id against the fake Bot API: getMe, getChat
// and getChatMember before anything is kept; each refusal says what is wrong and never holds
// the token. Also the platform's rules (lengths, album size, options).
import { validateCreatePost } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/index.ts';
import { type FakeTelegram, startFakeTelegram, testConfig } from './helpers.ts';

let fake: FakeTelegram;
beforeAll(async () => {
  fake = await startFakeTelegram();
});
afterAll(async () => {
  await fake.close();
});

const registry = (apiBaseUrl = fake.baseUrl) =>
  createPlatformRegistry(testConfig({ telegram: { apiBaseUrl } }));
const connector = (apiBaseUrl?: string) => {
  const credentials = registry(apiBaseUrl).credentials('telegram');
  if (!credentials) throw new Error('telegram connects by credentials');
  return credentials;
};
const connect = (fields: { bot_token?: string; chat_id?: string }, apiBaseUrl?: string) =>
  connector(apiBaseUrl).connect({ bot_token: fake.bot.token, chat_id: '', ...fields });

describe('telegram credentials', () => {
  it('declares bot_token (a secret) and chat_id, and no OAuth', () => {
    expect(registry().oauth('telegram')).toBeUndefined();
    expect(connector().fields.map(({ name, secret }) => ({ name, secret }))).toEqual([
      { name: 'bot_token', secret: true },
      { name: 'chat_id', secret: false },
    ]);
  });

  it('a channel by @username: its numeric id, its title, the token kept as the access token', async () => {
    const outcome = await connect({ chat_id: '@fakechannel' });
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
    expect(outcome.identity).toEqual({
      externalId: String(fake.channel.id),
      displayName: 'Fake Channel',
      tokens: { accessToken: fake.bot.token, refreshToken: null, expiresAt: null, scopes: [] },
      platformData: {
        chat_type: 'channel',
        chat_username: 'fakechannel',
        bot_username: fake.bot.username,
      },
    });
    const methods = fake.requests.slice(-3).map((r) => r.path.split('/').pop());
    expect(methods).toEqual(['getMe', 'getChat', 'getChatMember']);
  });

  it('a wrong token is refused saying so, without the token', async () => {
    const wrong = '7000000001:AAH-this-is-not-the-right-token-000';
    const outcome = await connect({ bot_token: wrong, chat_id: String(fake.group.id) });
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'unauthorized', transient: false },
    });
    if (outcome.ok) return;
    expect(outcome.error.message).toContain('bot token');
    expect(JSON.stringify(outcome)).not.toContain(wrong);
  });

  it('malformed fields are refused before any call', async () => {
    const calls = fake.requests.length;
    expect(await connect({ bot_token: 'not a token', chat_id: '1' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_bot_token', transient: false },
    });
    expect(await connect({ chat_id: 'general chat' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_chat_id' },
    });
    expect(fake.requests.length).toBe(calls);
  });

  it('an unknown chat, a chat the bot left, a channel where it may not post: each refused', async () => {
    expect(await connect({ chat_id: '-100111' })).toMatchObject({
      ok: false,
      error: { code: 'bad_request', message: expect.stringContaining('add the bot') },
    });
    fake.chats.set(-4000000002, {
      id: -4000000002,
      type: 'supergroup',
      title: 'Left',
      username: 'leftgroup',
      botStatus: 'left',
    });
    expect(await connect({ chat_id: '@leftgroup' })).toMatchObject({
      ok: false,
      error: { code: 'bot_cannot_post', message: expect.stringContaining('not a member') },
    });
    fake.chats.set(-1002000000000, {
      id: -1002000000000,
      type: 'channel',
      title: 'Read only',
      botStatus: 'member',
    });
    expect(await connect({ chat_id: '-1002000000000' })).toMatchObject({
      ok: false,
      error: { code: 'bot_cannot_post', message: expect.stringContaining('administrator') },
    });
  });

  it('an unreachable API or a 5xx is transient, and says nothing of the token', async () => {
    const down = await connect({ chat_id: '1' }, 'http://127.0.0.1:9');
    expect(down).toMatchObject({ ok: false, error: { code: 'network_error', transient: true } });
    expect(JSON.stringify(down)).not.toContain(fake.bot.token);
    fake.script({ error: { status: 502, description: 'Bad Gateway' }, method: 'getMe' });
    expect(await connect({ chat_id: String(fake.group.id) })).toMatchObject({
      ok: false,
      error: { code: 'http_502', transient: true },
    });
  });
});

describe('telegram rules', () => {
  const rules = createPlatformRegistry(testConfig());
  type Input = {
    content: string;
    media_urls?: string[];
    thread?: { content: string; media_urls?: string[] }[];
    first_comment?: string;
    platform_options?: Record<string, unknown>;
  };
  /** The shared rules with the platform's, and the publisher's own checks. */
  const check = (input: Input) => [
    ...validateCreatePost(
      { platforms: ['telegram'], ...input },
      { mode: 'now', now: new Date(), platforms: rules },
    ),
    ...(rules.get('telegram')?.validate({
      content: input.content,
      mediaUrls: input.media_urls ?? [],
      thread: (input.thread ?? []).map((p) => ({
        content: p.content,
        mediaUrls: p.media_urls ?? [],
      })),
      platformOptions: {},
    }) ?? []),
  ];
  const photos = (n: number) =>
    Array.from({ length: n }, (_, i) => `https://cdn.example/p${i}.jpg`);
  const fields = (problems: { field: string }[]) => problems.map((p) => p.field);

  it('text 4,096 (UTF-16 units), caption 1,024 with media, albums up to 10', () => {
    expect(check({ content: 'x'.repeat(4096) })).toEqual([]);
    expect(fields(check({ content: 'x'.repeat(4097) }))).toEqual(['content']);
    expect(fields(check({ content: '😀'.repeat(2049) }))).toEqual(['content']);
    expect(check({ content: 'x'.repeat(1024), media_urls: photos(10) })).toEqual([]);
    expect(fields(check({ content: 'x'.repeat(1025), media_urls: photos(1) }))).toEqual([
      'content',
    ]);
    expect(fields(check({ content: 'x', media_urls: photos(11) }))).toEqual(['media_urls']);
    expect(
      fields(
        check({ content: 'x', thread: [{ content: 'y'.repeat(1025), media_urls: photos(2) }] }),
      ),
    ).toEqual(['thread[0].content']);
  });

  it('a message needs text or media; no first comment; disable_notification a boolean', () => {
    expect(fields(check({ content: ' ' }))).toEqual(['content']);
    expect(check({ content: '', media_urls: photos(1) })).toEqual([]);
    expect(fields(check({ content: 'x', first_comment: 'y' }))).toEqual(['first_comment']);
    expect(
      check({ content: 'x', platform_options: { telegram: { disable_notification: true } } }),
    ).toEqual([]);
    expect(
      fields(check({ content: 'x', platform_options: { telegram: { disable_notification: 1 } } })),
    ).toEqual(['platform_options.telegram.disable_notification']);
  });
});
