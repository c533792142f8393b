// An outage of the service's own database or Redis inside a run (recording an intent, saving
// progress, pacing) is not the platform's answer: the publishers rethrow it untouched, so the
// worker waits it out and the next run goes on from what was recorded. Turned into an outcome,
// it failed targets for good as `adapter_error` while PostgreSQL restarted.
import { DependencyUnavailableError } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentCall } from '../src/shared/comment-calls.ts';
import {
  afterCrash,
  expectPublished,
  type FakeTiktok,
  type FakeX,
  makeRequest,
  publisherFor,
  startFakeTiktok,
  startFakeX,
  testConfig,
} from './helpers.ts';

const VIDEO = 'https://cdn.example.com/clips/outage.mp4';
const outage = (dependency: 'database' | 'pacer') =>
  new DependencyUnavailableError(
    dependency,
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
  );

let x: FakeX;
let tiktok: FakeTiktok;
beforeAll(async () => {
  [x, tiktok] = await Promise.all([
    startFakeX({}),
    startFakeTiktok({ verifiedUrlPrefixes: ['https://cdn.example.com/clips/'] }),
  ]);
});
afterAll(async () => {
  await Promise.all([x.close(), tiktok.close()]);
});

const config = () =>
  testConfig({
    twitter: {
      apiBaseUrl: x.baseUrl,
      tokenBaseUrl: x.baseUrl,
      clientId: 'x-client-id',
      clientSecret: 'x-client-secret',
    },
    tiktok: {
      apiBaseUrl: tiktok.baseUrl,
      tokenBaseUrl: tiktok.baseUrl,
      clientId: 'ck',
      clientSecret: 'cs',
    },
  });

describe('an outage of the service inside a publish run', () => {
  it('X: the intent cannot be recorded, the outage is rethrown and nothing is sent', async () => {
    const h = makeRequest({ platform: 'twitter', content: 'Outage #1', externalId: x.user.id });
    const down = outage('database');
    h.request.recordIntent = () => Promise.reject(down);
    const tweets = x.tweets.length;
    await expect(publisherFor('twitter', config()).publish(h.request)).rejects.toBe(down);
    expect(x.tweets.length).toBe(tweets);
  });

  it('X: pacing cannot reach Redis, the outage is rethrown; the next run posts once', async () => {
    const h = makeRequest({ platform: 'twitter', content: 'Outage #2', externalId: x.user.id });
    const down = outage('pacer');
    h.request.beforeCountedCall = () => Promise.reject(down);
    await expect(publisherFor('twitter', config()).publish(h.request)).rejects.toBe(down);
    const tweets = x.tweets.length;
    expectPublished(await publisherFor('twitter', config()).resume(afterCrash(h).request));
    expect(x.tweets.length).toBe(tweets + 1);
  });

  it('TikTok: the publish id cannot be saved, the outage is rethrown with the intent kept', async () => {
    const h = makeRequest({ platform: 'tiktok', mediaUrls: [VIDEO], content: 'Outage' });
    const down = outage('database');
    h.request.saveProgress = () => Promise.reject(down);
    await expect(publisherFor('tiktok', config()).publish(h.request)).rejects.toBe(down);
    // The init reached TikTok and its answer was not stored: the next run must look, not send.
    expect(h.pendingIntent()).not.toBeNull();
  });
});

describe('an outage of the service inside a comment call', () => {
  const signal = new AbortController().signal;
  it('commentCall rethrows it (no refusal)', async () => {
    const down = outage('database');
    await expect(commentCall(signal, () => Promise.reject(down))).rejects.toBe(down);
  });
});
