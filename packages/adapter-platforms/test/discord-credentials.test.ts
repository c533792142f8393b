// Connecting a Discord channel by its webhook URL against the fake: the URL's form (Discord's
// hosts or DISCORD_API_BASE_URL), a GET of the webhook before anything is kept, refusals that
// say what is wrong and never hold the token. Also the platform's rules.
import { validateCreatePost } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebhookUrl } from '../src/discord/webhook-url.ts';
import { createPlatformRegistry } from '../src/index.ts';
import { type FakeDiscord, startFakeDiscord, testConfig } from './helpers.ts';

let fake: FakeDiscord;
beforeAll(async () => {
  fake = await startFakeDiscord();
});
afterAll(async () => {
  await fake.close();
});

const registry = (apiBaseUrl = fake.baseUrl) =>
  createPlatformRegistry(testConfig({ discord: { apiBaseUrl } }));
const connect = (webhookUrl: string, apiBaseUrl?: string) => {
  const credentials = registry(apiBaseUrl).credentials('discord');
  if (!credentials) throw new Error('discord connects by credentials');
  return credentials.connect({ webhook_url: webhookUrl });
};

describe('discord webhook URLs', () => {
  const token = 'abcDEF_123-abcDEF_123-abcDEF_123-abcDEF_123';
  const base = 'http://127.0.0.1:7777/proxy';
  it("Discord's hosts (any API version) and URLs under the configured base are taken", () => {
    const id = '123456789012345678';
    for (const url of [
      `https://discord.com/api/webhooks/${id}/${token}`,
      `https://discordapp.com/api/webhooks/${id}/${token}/`,
      `https://canary.discord.com/api/v10/webhooks/${id}/${token}`,
      `${base}/api/webhooks/${id}/${token}`,
      `  https://ptb.discord.com/api/webhooks/${id}/${token}  `,
    ]) {
      expect(parseWebhookUrl(url, base), url).toEqual({ id, token });
    }
  });

  it('anything else is refused', () => {
    const id = '123456789012345678';
    for (const url of [
      `http://discord.com/api/webhooks/${id}/${token}`,
      `https://discord.com.evil.example/api/webhooks/${id}/${token}`,
      `https://evil.example/api/webhooks/${id}/${token}`,
      `https://discord.com/api/webhooks/${id}/${token}?thread_id=1`,
      `https://discord.com/api/webhooks/${id}/${token}/slack`,
      `https://discord.com/api/webhooks/abc/${token}`,
      `https://user:pw@discord.com/api/webhooks/${id}/${token}`,
      `http://127.0.0.1:7777/api/webhooks/${id}/${token}`,
      'not a url',
    ]) {
      expect(parseWebhookUrl(url, base), url).toBeNull();
    }
  });
});

describe('discord credentials', () => {
  it('declares webhook_url (a secret), and no OAuth', () => {
    expect(registry().oauth('discord')).toBeUndefined();
    expect(
      registry()
        .credentials('discord')
        ?.fields.map(({ name, secret }) => ({ name, secret })),
    ).toEqual([{ name: 'webhook_url', secret: true }]);
  });

  it('GETs the webhook: its id, its name, the token as the access token, guild and channel', async () => {
    const outcome = await connect(fake.webhookUrl());
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
    const { id, name, token, guildId, channelId } = fake.webhook;
    expect(outcome.identity).toEqual({
      externalId: id,
      displayName: name,
      tokens: { accessToken: token, refreshToken: null, expiresAt: null, scopes: [] },
      platformData: { channel_id: channelId, guild_id: guildId },
    });
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/api/v10/webhooks/${id}/${token}`,
    });
  });

  it('a URL on discord.com is called on the configured host', async () => {
    const { id, token } = fake.webhook;
    const outcome = await connect(`https://discord.com/api/webhooks/${id}/${token}`);
    expect(outcome.ok).toBe(true);
  });

  it('a malformed URL, an unknown webhook, a wrong token: refused, the token never shown', async () => {
    const calls = fake.requests.length;
    const malformed = await connect('https://example.com/hooks/1/secret-token-value-here');
    expect(malformed).toMatchObject({
      ok: false,
      error: { code: 'invalid_webhook_url', transient: false },
    });
    expect(JSON.stringify(malformed)).not.toContain('secret-token-value-here');
    expect(fake.requests.length).toBe(calls);
    const { id, token } = fake.webhook;
    const unknown = await connect(`${fake.baseUrl}/api/webhooks/1299999999999999999/${token}`);
    expect(unknown).toMatchObject({
      ok: false,
      error: {
        code: '10015',
        message: expect.stringContaining('Unknown Webhook'),
        transient: false,
      },
    });
    const wrong = `${token.slice(0, -4)}XXXX`;
    const refused = await connect(`${fake.baseUrl}/api/webhooks/${id}/${wrong}`);
    expect(refused).toMatchObject({ ok: false, error: { code: '50027', transient: false } });
    for (const outcome of [unknown, refused]) {
      expect(JSON.stringify(outcome)).not.toContain(token.slice(0, 20));
    }
  });

  it('a webhook that is not an incoming one is refused', async () => {
    const follower = { ...fake.webhook, id: '1200000000000000007', type: 2 };
    fake.webhooks.push(follower);
    expect(await connect(fake.webhookUrl(follower))).toMatchObject({
      ok: false,
      error: { code: 'not_incoming_webhook' },
    });
  });

  it('an unreachable host or a 5xx is transient', async () => {
    const { id, token } = fake.webhook;
    const down = await connect(
      `http://127.0.0.1:9/api/webhooks/${id}/${token}`,
      'http://127.0.0.1:9',
    );
    expect(down).toMatchObject({ ok: false, error: { code: 'network_error', transient: true } });
    expect(JSON.stringify(down)).not.toContain(token);
    fake.script({ error: { status: 502, message: 'Bad Gateway' }, on: 'get' });
    expect(await connect(fake.webhookUrl())).toMatchObject({
      ok: false,
      error: { code: 'http_502', transient: true },
    });
  });
});

describe('discord rules', () => {
  const rules = createPlatformRegistry(testConfig());
  type Input = {
    content: string;
    media_urls?: string[];
    thread?: { content: string; media_urls?: string[] }[];
    platform_options?: Record<string, unknown>;
  };
  const check = (input: Input) => [
    ...validateCreatePost(
      { platforms: ['discord'], ...input },
      { mode: 'now', now: new Date(), platforms: rules },
    ),
    ...(rules.get('discord')?.validate({
      content: input.content,
      mediaUrls: input.media_urls ?? [],
      thread: (input.thread ?? []).map((p) => ({
        content: p.content,
        mediaUrls: p.media_urls ?? [],
      })),
      platformOptions: {},
    }) ?? []),
  ];
  const files = (n: number) => Array.from({ length: n }, (_, i) => `https://cdn.example/f${i}.png`);
  const fields = (problems: { field: string }[]) => problems.map((p) => p.field);

  it('content 2,000, up to 10 files per message, text or a file', () => {
    expect(check({ content: 'x'.repeat(2000), media_urls: files(10) })).toEqual([]);
    expect(fields(check({ content: 'x'.repeat(2001) }))).toEqual(['content']);
    expect(fields(check({ content: 'x', media_urls: files(11) }))).toEqual(['media_urls']);
    expect(
      fields(check({ content: 'x', thread: [{ content: 'y', media_urls: files(11) }] })),
    ).toEqual(['thread[0].media_urls']);
    expect(fields(check({ content: '' }))).toEqual(['content']);
  });

  it('username: 1 to 80 characters, without the names Discord refuses', () => {
    const options = (username: unknown) => ({
      content: 'x',
      platform_options: { discord: { username } },
    });
    expect(check(options('Newsroom'))).toEqual([]);
    expect(fields(check(options('x'.repeat(81))))).toEqual(['platform_options.discord.username']);
    expect(fields(check(options('My Discord bot')))).toEqual(['platform_options.discord.username']);
    expect(fields(check(options(5)))).toEqual(['platform_options.discord.username']);
  });
});
