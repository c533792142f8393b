// The Telegram publisher over real HTTP against the local fake Bot API: text, one photo or video
// by URL with a caption, an album (sendMediaGroup), a thread as replies, the silent option, a
// 429 with retry_after as a wait, refusals as failures, a revoked token as an expired
// connection, and never a message sent twice after a lost answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeTelegram,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeTelegram,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeTelegram;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeTelegram(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const publisher = () =>
  publisherFor('telegram', testConfig({ telegram: { apiBaseUrl: fake.baseUrl } }));
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const request = (content: string, extra: Partial<Parameters<typeof makeRequest>[0]> = {}) =>
  makeRequest({
    platform: 'telegram',
    content,
    accessToken: fake.bot.token,
    refreshToken: null,
    externalId: String(fake.channel.id),
    platformData: { chat_type: 'channel', chat_username: 'fakechannel' },
    ...extra,
  });
const message = (id: string | undefined) =>
  fake.messages.find((m) => String(m.messageId) === id && m.chatId === fake.channel.id);

describe('telegram publisher: messages', () => {
  it('sends text with sendMessage; the public channel gives the t.me link', async () => {
    const h = request(text('Hello'));
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(message(outcome.platformPostId)).toMatchObject({
      method: 'sendMessage',
      text: h.request.post.content,
      silent: false,
      replyTo: null,
    });
    expect(outcome.platformUrl).toBe(`https://t.me/fakechannel/${outcome.platformPostId}`);
    expect(h.countedAt).toHaveLength(1);
    expect(h.intents).toEqual(['message']);
    expect(fake.requests.at(-1)?.path).toBe(`/bot${fake.bot.token}/sendMessage`);
  });

  it('a private group has no public link; disable_notification sends silently', async () => {
    const h = request(text('Quiet'), {
      externalId: String(fake.group.id),
      platformData: { chat_type: 'group' },
      platformOptions: { telegram: { disable_notification: true } },
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(outcome.platformUrl).toBeNull();
    expect(fake.messages.at(-1)).toMatchObject({ chatId: fake.group.id, silent: true });
  });

  it('one photo is sendPhoto, one video sendVideo, each with the URL and the caption', async () => {
    const photo = media.url('telegram-photo.jpg', 2048);
    const video = media.url('telegram-clip.mp4', 4096);
    const first = expectPublished(
      await publisher().publish(request(text('Photo'), { mediaUrls: [photo] }).request),
    );
    expect(message(first.platformPostId)).toMatchObject({
      method: 'sendPhoto',
      mediaUrl: photo,
      mediaType: 'photo',
    });
    expect(message(first.platformPostId)?.caption).toMatch(/^Photo #/);
    const second = expectPublished(
      await publisher().publish(request(text('Video'), { mediaUrls: [video] }).request),
    );
    expect(message(second.platformPostId)).toMatchObject({ method: 'sendVideo', mediaUrl: video });
  });

  it('2 to 10 media are one album (sendMediaGroup): the first message is the post', async () => {
    const urls = [media.url('a1.jpg', 100), media.url('a2.mp4', 100), media.url('a3.png', 100)];
    const h = request(text('Album'), { mediaUrls: urls });
    const outcome = expectPublished(await publisher().publish(h.request));
    const album = fake.messages.filter(
      (m) =>
        m.mediaGroupId !== null && m.mediaGroupId === message(outcome.platformPostId)?.mediaGroupId,
    );
    expect(album.map((m) => [m.mediaType, m.mediaUrl])).toEqual([
      ['photo', urls[0]],
      ['video', urls[1]],
      ['photo', urls[2]],
    ]);
    expect(album[0]?.caption).toBe(h.request.post.content);
    expect(album[1]?.caption).toBeNull();
    expect(String(album[0]?.messageId)).toBe(outcome.platformPostId);
  });

  it('a thread: each follow-up replies to the message before it, ids stored as they go', async () => {
    const h = request(text('Root'), {
      thread: [
        { content: 'Second', mediaUrls: [] },
        { content: 'Third', mediaUrls: [media.url('t3.jpg', 64)] },
      ],
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const [second, third] = outcome.threadPostIds ?? [];
    expect(message(second)?.replyTo).toBe(Number(outcome.platformPostId));
    expect(message(third)).toMatchObject({ method: 'sendPhoto', replyTo: Number(second) });
    expect(h.intents).toEqual(['message', 'thread_0', 'thread_1']);
    expect(h.progress.at(-1)).toEqual({
      messageId: outcome.platformPostId,
      threadIds: [second, third],
    });
  });
});

describe('telegram publisher: answers', () => {
  it('a 429 waits retry_after seconds without spending an attempt; nothing was sent', async () => {
    fake.script({
      error: {
        status: 429,
        description: 'Too Many Requests: retry after 42',
        parameters: { retry_after: 42 },
      },
      method: 'sendMessage',
    });
    const h = request(text('Busy'));
    const before = Date.now();
    const outcome = await publisher().publish(h.request);
    if (outcome.kind !== 'throttled') throw new Error(JSON.stringify(outcome));
    expect(outcome.code).toBe('too_many_requests');
    const wait = outcome.retryAt.getTime() - before;
    expect(wait).toBeGreaterThanOrEqual(42_000);
    expect(wait).toBeLessThan(47_000);
    expect(h.pendingIntent()).toBeNull();
  });

  it("the fake's own per-chat limit answers the same 429 shape", async () => {
    const sent = fake.messages.filter((m) => m.chatId === fake.channel.id).length;
    fake.messageLimit = sent;
    try {
      const outcome = await publisher().publish(request(text('Over')).request);
      expect(outcome).toMatchObject({ kind: 'throttled', code: 'too_many_requests' });
    } finally {
      fake.messageLimit = undefined;
    }
  });

  it("refusals are failed with Telegram's description; 5xx is retryable", async () => {
    fake.script({
      error: { status: 403, description: 'Forbidden: bot was kicked from the channel chat' },
      method: 'sendMessage',
    });
    expect(await publisher().publish(request(text('Kicked')).request)).toEqual({
      kind: 'failed',
      code: 'forbidden',
      message: 'Telegram sendMessage: Forbidden: bot was kicked from the channel chat',
      retryable: false,
    });
    fake.script({ error: { status: 502, description: 'Bad Gateway' }, method: 'sendMessage' });
    expect(await publisher().publish(request(text('Down')).request)).toMatchObject({
      kind: 'failed',
      code: 'http_502',
      retryable: true,
    });
  });

  it('a group migrated to a supergroup says to connect it again', async () => {
    fake.script({
      error: {
        status: 400,
        description: 'Bad Request: group chat was upgraded to a supergroup chat',
        parameters: { migrate_to_chat_id: -1009999999999 },
      },
    });
    expect(await publisher().publish(request(text('Moved')).request)).toMatchObject({
      kind: 'failed',
      code: 'chat_migrated',
      retryable: false,
      message: expect.stringContaining('-1009999999999'),
    });
  });

  it('a revoked bot token expires the connection; no message names the token', async () => {
    const h = request(text('Revoked'), {
      accessToken: '7000000001:AAH-some-other-revoked-token-xyz',
    });
    const outcome = await publisher().publish(h.request);
    expect(outcome.kind).toBe('connection_expired');
    expect(JSON.stringify(outcome)).not.toContain('AAH-some-other');
  });

  it('a transport failure names the method, never the URL with the token', async () => {
    const down = publisherFor(
      'telegram',
      testConfig({ telegram: { apiBaseUrl: 'http://127.0.0.1:9' } }),
    );
    const outcome = await down.publish(request(text('Nowhere')).request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'network_error', retryable: true });
    expect(JSON.stringify(outcome)).not.toContain(fake.bot.token);
    expect(JSON.stringify(outcome)).toContain('Telegram sendMessage');
  });
});

describe('telegram publisher: never twice', () => {
  it('an answer lost after sending ends outcome_unknown on resume, nothing sent again', async () => {
    fake.script({ dropAfterSend: true, method: 'sendMessage' });
    const h = request(text('Lost'));
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    expect(h.pendingIntent()?.step).toBe('message');
    const sent = fake.messages.length;
    const again = afterCrash(h);
    const second = await publisher().resume(again.request);
    expect(second).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(fake.messages.length).toBe(sent);
  });

  it('a follow-up whose answer was lost: the main message kept, the follow-up unknown', async () => {
    const h = request(text('Halfway'), {
      thread: [{ content: 'Only once', mediaUrls: [media.url('once.jpg', 64)] }],
    });
    fake.script({ dropAfterSend: true, method: 'sendPhoto' });
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    expect(h.pendingIntent()?.step).toBe('thread_0');
    const main = h.progress.at(-1)?.messageId as string;
    const sent = fake.messages.length;
    const second = await publisher().resume(afterCrash(h).request);
    expect(second).toMatchObject({
      kind: 'failed',
      code: 'outcome_unknown',
      publishedSoFar: { platformPostId: main, threadPostIds: [] },
    });
    expect(fake.messages.length).toBe(sent);
  });

  it('a thread whose follow-up failed keeps the main message and resumes after it', async () => {
    const h = request(text('Parts'), { thread: [{ content: 'Follow', mediaUrls: [] }] });
    fake.script({ error: { status: 502, description: 'Bad Gateway' }, method: 'sendMessage' });
    const sent = fake.messages.length;
    const first = await publisher().publish(h.request);
    expect(first).toMatchObject({ kind: 'failed', retryable: true });
    expect(fake.messages.length).toBe(sent);
    // The first 502 hit the main message: nothing published, the intent cleared.
    expect(h.pendingIntent()).toBeNull();
    const again = afterCrash(h);
    const second = expectPublished(await publisher().resume(again.request));
    expect(second.threadPostIds).toHaveLength(1);
    expect(fake.messages.length).toBe(sent + 2);
  });
});
