/**
 * Child process of the media benchmark, the measured one: the receiving side of one upload.
 * `adapter`: the whole API (embedded runtime, local media store) serving POST /media.
 * `floor`: a bare node:http server piping the request body into a file.
 * It samples its own RSS from `go` to `stop`. Started fresh for each upload (--expose-gc).
 *
 * Env: MEDIA_KIND (adapter|floor).
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { bootstrap, buildApp } from '@social-publisher/app-http';
import { createRuntime, loadRuntimeConfig } from '@social-publisher/runtime';
import { tuneHeapForServing } from '@social-publisher/runtime/heap-tuning';
import pino from 'pino';
import { onParentMessage, toParent } from '../lib/child.ts';

// As a serving process starts (and the floor beside it, in the same process kind).
tuneHeapForServing();

const kind = process.env.MEDIA_KIND ?? 'adapter';
const dir = mkdtempSync(join(tmpdir(), `sp-bench-media-${kind}-`));

async function startAdapter(): Promise<{ url: string; key: string; close(): Promise<void> }> {
  const config = loadRuntimeConfig({
    DATA_DIR: dir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    MEDIA_MAX_BYTES: String(16 * 1024 ** 3),
    RATE_LIMIT_MAX: '100000',
  });
  const logger = pino({ level: 'silent' });
  const runtime = await createRuntime(config, logger, { role: 'embedded' });
  const first = await bootstrap(runtime.deps, null);
  if (first.kind !== 'first-user') throw new Error(`bootstrap: ${first.kind}`);
  const app = await buildApp({
    deps: runtime.deps,
    checks: runtime.checks,
    queueKind: runtime.queueKind,
    config,
    logger,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/media`,
    key: first.rawKey,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

/** The least a receiver can do: the request body piped into a file. */
async function startFloor(): Promise<{ url: string; key: string; close(): Promise<void> }> {
  let files = 0;
  const server = createServer((request, response) => {
    files += 1;
    pipeline(request, createWriteStream(join(dir, `floor-${files}.bin`))).then(
      () => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end('{}');
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/floor`,
    key: 'none',
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const receiver = kind === 'floor' ? await startFloor() : await startAdapter();

let sampler: NodeJS.Timeout | undefined;
let before = 0;
let peak = 0;
let maxRssBefore = 0;
let start = process.memoryUsage();
let atPeak = { arrayBuffers: 0, heapUsed: 0 };

onParentMessage(async (message) => {
  if (message.type === 'go') {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    start = process.memoryUsage();
    before = start.rss;
    peak = before;
    atPeak = { arrayBuffers: start.arrayBuffers, heapUsed: start.heapUsed };
    maxRssBefore = process.resourceUsage().maxRSS * 1024;
    sampler = setInterval(() => {
      const usage = process.memoryUsage();
      if (usage.rss > peak) {
        peak = usage.rss;
        atPeak = { arrayBuffers: usage.arrayBuffers, heapUsed: usage.heapUsed };
      }
    }, 5);
    toParent({ type: 'going' });
  } else if (message.type === 'stop') {
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    const maxRssAfter = process.resourceUsage().maxRSS * 1024;
    toParent({
      type: 'stopped',
      rssBefore: before,
      rssPeak: peak,
      buffersGrowthAtPeak: atPeak.arrayBuffers - start.arrayBuffers,
      heapGrowthAtPeak: atPeak.heapUsed - start.heapUsed,
      // The kernel's high-water mark: catches a peak between two samples.
      maxRssGrowth: Math.max(0, maxRssAfter - Math.max(maxRssBefore, before)),
    });
  }
});
// The parent's `exit` ends the process at once: the upload's files go with it.
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

toParent({ type: 'ready', url: receiver.url, key: receiver.key });
