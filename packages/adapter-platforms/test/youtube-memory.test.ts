import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectPublished, makeRequest, publisherFor, testConfig } from './helpers.ts';

const MB = 1024 * 1024;
const SIZE = 200 * MB;
const BOUND = 64 * MB;

interface SessionInfo {
  id: string;
  totalBytes: number;
  receivedBytes: number;
  patternOk: boolean;
  uploads: number;
}

// The fakes run in a child process: the RSS measured here is the adapter's alone.
let child: ChildProcess;
let youtubeBase = '';
let mediaBase = '';

async function ask<T>(type: string): Promise<T> {
  const reply = new Promise<T>((resolve) => {
    const onMessage = (message: { type: string } & T) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
  });
  child.send({ type });
  return reply;
}

beforeAll(async () => {
  child = fork(fileURLToPath(new URL('./fixtures/upload-fakes-process.ts', import.meta.url)), {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ youtube: string; media: string }];
  youtubeBase = ready.youtube;
  mediaBase = ready.media;
});
afterAll(async () => {
  if (child.exitCode === null) {
    child.send({ type: 'close' });
    await once(child, 'exit');
  }
});

it('streams a 200 MB video from the media URL to YouTube with flat memory', async () => {
  const publisher = publisherFor(
    'youtube',
    testConfig({ youtube: { apiBaseUrl: youtubeBase, tokenBaseUrl: youtubeBase } }),
  );
  const mediaUrl = (name: string, size: number) => `${mediaBase}/media/${name}?size=${size}`;
  // Warm-up: a 64 MB upload loads every code path, opens the sockets and lets the heap reach the
  // steady state of a streaming upload. Socket reads allocate a fresh buffer each (garbage right
  // after it is written on), and V8 collects external memory only after about 64 MB of it has
  // accumulated, so the first upload of a process always lifts RSS by up to that much once. The
  // measured growth is what the 200 MB upload adds on top: a buffered upload would add >= 200 MB.
  const cold = process.memoryUsage().rss;
  expectPublished(
    await publisher.publish(
      makeRequest({ platform: 'youtube', mediaUrls: [mediaUrl('warm.mp4', 64 * MB)] }).request,
    ),
  );

  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    expectPublished(
      await publisher.publish(
        makeRequest({ platform: 'youtube', mediaUrls: [mediaUrl('big.mp4', SIZE)] }).request,
      ),
    );
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  const growth = peak - baseline;
  console.log(
    `youtube 200 MB streamed upload: adapter process RSS baseline ${(baseline / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB, growth ${(growth / MB).toFixed(1)} MB (bound ${BOUND / MB} MB; the 64 MB warm-up upload from a cold process lifted RSS by ${((baseline - cold) / MB).toFixed(1)} MB)`,
  );
  const { sessions } = await ask<{ sessions: SessionInfo[] }>('sessions');
  expect(sessions.at(-1)).toMatchObject({
    totalBytes: SIZE,
    receivedBytes: SIZE,
    patternOk: true,
    uploads: 1,
  });
  expect(growth).toBeLessThan(BOUND);
});
