// The Discord publisher over real HTTP against the local fake webhook API: text as JSON, media
// as multipart files streamed from the media URLs, a thread as further messages, a 429 with
// retry_after as a wait, refusals with Discord's words, a deleted webhook as an expired
// connection, never a message sent twice after a lost answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeDiscord,
  type MediaServer,
  makeRequest,
  publisherFor,
  startFakeDiscord,
  startMediaServer,
  testConfig,
} from './helpers.ts';

let fake: FakeDiscord;
let media: MediaServer;
beforeAll(async () => {
  [fake, media] = await Promise.all([startFakeDiscord(), startMediaServer()]);
});
afterAll(async () => {
  await Promise.all([fake.close(), media.close()]);
});

const publisher = () =>
  publisherFor('discord', testConfig({ discord: { apiBaseUrl: fake.baseUrl } }));
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const request = (content: string, extra: Partial<Parameters<typeof makeRequest>[0]> = {}) =>
  makeRequest({
    platform: 'discord',
    content,
    accessToken: fake.webhook.token,
    refreshToken: null,
    externalId: fake.webhook.id,
    platformData: { channel_id: fake.webhook.channelId, guild_id: fake.webhook.guildId ?? '' },
    ...extra,
  });
const message = (id: string | undefined) => fake.messages.find((m) => m.id === id);

describe('discord publisher: messages', () => {
  it('posts text as JSON with wait=true; the link names guild, channel and message', async () => {
    const h = request(text('Hello'), { platformOptions: { discord: { username: 'Newsroom' } } });
    const outcome = expectPublished(await publisher().publish(h.request));
    expect(message(outcome.platformPostId)).toMatchObject({
      content: h.request.post.content,
      username: 'Newsroom',
      attachments: [],
    });
    const { guildId, channelId, id, token } = fake.webhook;
    expect(outcome.platformUrl).toBe(
      `https://discord.com/channels/${guildId}/${channelId}/${outcome.platformPostId}`,
    );
    const call = fake.requests.at(-1);
    expect(call?.path).toBe(`/api/v10/webhooks/${id}/${token}`);
    expect(call?.query).toEqual({ wait: 'true' });
    expect(h.countedAt).toHaveLength(1);
    expect(h.intents).toEqual(['message']);
  });

  it('without a guild the message has no link', async () => {
    const h = request(text('Nowhere'), { platformData: { channel_id: fake.webhook.channelId } });
    expect(expectPublished(await publisher().publish(h.request)).platformUrl).toBeNull();
  });

  it('media are multipart files[n], streamed byte for byte, named by their URL', async () => {
    const urls = [
      media.url('discord-photo.jpg', 70_000),
      media.url('clip.mp4', 300_000),
      `${media.url('noext', 1000)}`,
    ];
    const h = request(text('Files'), { mediaUrls: urls });
    const outcome = expectPublished(await publisher().publish(h.request));
    const sent = message(outcome.platformPostId);
    expect(sent?.attachments.map((file) => [file.filename, file.size, file.patternOk])).toEqual([
      ['discord-photo.jpg', 70_000, true],
      ['clip.mp4', 300_000, true],
      ['media-2.mp4', 1000, true],
    ]);
    expect(sent?.content).toBe(h.request.post.content);
  });

  it('a thread: each follow-up another message, ids stored as they go', async () => {
    const h = request(text('Root'), {
      thread: [
        { content: 'Second', mediaUrls: [] },
        { content: 'Third', mediaUrls: [media.url('third.png', 500)] },
      ],
    });
    const outcome = expectPublished(await publisher().publish(h.request));
    const [second, third] = outcome.threadPostIds ?? [];
    expect(message(second)?.content).toBe('Second');
    expect(message(third)?.attachments).toHaveLength(1);
    expect(h.intents).toEqual(['message', 'thread_0', 'thread_1']);
    expect(h.progress.at(-1)).toMatchObject({
      messageId: outcome.platformPostId,
      threadIds: [second, third],
    });
  });
});

describe('discord publisher: answers', () => {
  it('a 429 waits retry_after seconds; nothing was sent', async () => {
    fake.script({
      error: { status: 429, message: 'You are being rate limited.', retryAfter: 12.5 },
    });
    const h = request(text('Busy'));
    const before = Date.now();
    const outcome = await publisher().publish(h.request);
    if (outcome.kind !== 'throttled') throw new Error(JSON.stringify(outcome));
    const wait = outcome.retryAt.getTime() - before;
    expect(wait).toBeGreaterThanOrEqual(13_000);
    expect(wait).toBeLessThan(15_000);
    expect(h.pendingIntent()).toBeNull();
  });

  it("the fake's own per-webhook limit answers the same 429 (1.5 s rounds up to 2)", async () => {
    fake.messageLimit = fake.messages.length;
    try {
      const outcome = await publisher().publish(request(text('Over')).request);
      expect(outcome).toMatchObject({ kind: 'throttled', code: 'http_429' });
    } finally {
      fake.messageLimit = undefined;
    }
  });

  it("refusals are failed with Discord's code and the field it names", async () => {
    fake.script({
      error: {
        status: 400,
        code: 50035,
        message: 'Invalid Form Body',
        errors: {
          content: { _errors: [{ code: 'X', message: 'Must be 2000 or fewer in length.' }] },
        },
      },
    });
    expect(await publisher().publish(request(text('Long')).request)).toEqual({
      kind: 'failed',
      code: '50035',
      message:
        'Discord execute webhook: Invalid Form Body (content: Must be 2000 or fewer in length.)',
      retryable: false,
    });
    fake.script({ error: { status: 413, message: 'Request entity too large', code: 40005 } });
    expect(await publisher().publish(request(text('Big')).request)).toMatchObject({
      kind: 'failed',
      code: 'payload_too_large',
      retryable: false,
    });
    fake.script({ error: { status: 503, message: 'upstream connect error' } });
    expect(await publisher().publish(request(text('Down')).request)).toMatchObject({
      kind: 'failed',
      retryable: true,
    });
  });

  it('a deleted webhook expires the connection; no outcome names the token', async () => {
    const other = { ...fake.webhook, id: '1200000000000000099' };
    fake.webhooks.push(other);
    fake.deleteWebhook(other.id);
    const h = request(text('Gone'), { externalId: other.id });
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'connection_expired' });
    expect(JSON.stringify(outcome)).toContain('Unknown Webhook');
    const down = publisherFor(
      'discord',
      testConfig({ discord: { apiBaseUrl: 'http://127.0.0.1:9' } }),
    );
    const failed = await down.publish(request(text('Nowhere')).request);
    expect(failed).toMatchObject({ kind: 'failed', code: 'network_error' });
    for (const answer of [outcome, failed]) {
      expect(JSON.stringify(answer)).not.toContain(fake.webhook.token);
    }
  });

  it('a media that cannot be fetched fails before anything reaches Discord', async () => {
    const calls = fake.requests.length;
    const h = request(text('Missing'), { mediaUrls: [`${media.baseUrl}/missing.jpg?status=404`] });
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'media_fetch_failed' });
    expect(fake.requests.length).toBe(calls);
    expect(h.pendingIntent()).toBeNull();
  });
});

describe('discord publisher: never twice', () => {
  it('a media cut short while sending: the body was incomplete, nothing sent, intent cleared', async () => {
    const url = media.url('cut.jpg', 50_000);
    media.script({ dropAfterBytes: 1_000, path: '/media/cut.jpg' });
    const h = request(text('Cut'), { mediaUrls: [url] });
    const sent = fake.messages.length;
    const outcome = await publisher().publish(h.request);
    expect(outcome).toMatchObject({ kind: 'failed', retryable: true });
    expect(fake.messages.length).toBe(sent);
    expect(h.pendingIntent()).toBeNull();
    // Sent again, whole this time.
    expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.messages.at(-1)?.attachments[0]).toMatchObject({ size: 50_000, patternOk: true });
  });

  it('an answer lost after sending ends outcome_unknown on resume, nothing sent again', async () => {
    fake.script({ dropAfterSend: true, on: 'execute' });
    const h = request(text('Lost'));
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    expect(h.pendingIntent()?.step).toBe('message');
    const sent = fake.messages.length;
    const second = await publisher().resume(afterCrash(h).request);
    expect(second).toMatchObject({ kind: 'failed', code: 'outcome_unknown', retryable: false });
    expect(fake.messages.length).toBe(sent);
  });

  it('a throttled follow-up resumes after the messages already sent', async () => {
    const h = request(text('Paced'), {
      thread: [
        { content: 'One', mediaUrls: [] },
        { content: 'Two', mediaUrls: [] },
      ],
    });
    fake.messageLimit = fake.messages.length + 2;
    let first: Awaited<ReturnType<ReturnType<typeof publisher>['publish']>>;
    try {
      first = await publisher().publish(h.request);
    } finally {
      fake.messageLimit = undefined;
    }
    expect(first).toMatchObject({ kind: 'throttled' });
    const sent = fake.messages.length;
    const done = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(done.threadPostIds).toHaveLength(2);
    expect(fake.messages.length).toBe(sent + 1);
    expect(message(done.threadPostIds?.[1])?.content).toBe('Two');
  });
});
