/**
 * media: one 2 GB upload through POST /media (the whole API on the embedded runtime, local
 * media store), the receiving server in a fresh process of its own: its peak RSS growth over
 * the upload is what hosting media costs in memory. Floor: the same bytes sent to a bare
 * node:http server that pipes the body into a file. The target is the API's growth against the
 * floor's in the same run (each API run paired with the floor run after it), as for `upload`.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import type { Bench, BenchOptions } from '../lib/bench.ts';
import { startChild } from '../lib/child.ts';
import { cpuLine, startCpuMeter } from '../lib/cpu.ts';
import type { Figure } from '../lib/report.ts';
import { fmt, fmtRuns, growthRatios, median } from '../lib/stats.ts';

const MB = 1024 * 1024;
const GB = 1024 * MB;
const CHUNK = 64 * 1024;

interface RunResult {
  ms: number;
  growth: number;
  rssBefore: number;
  buffersGrowth: number;
  heapGrowth: number;
  cpu: string;
}

/**
 * An MP4's first box (`ftyp`, 24 bytes): the API checks that a `video/mp4` body starts as one,
 * and refuses a body that does not (415 `media_type_mismatch`).
 */
const MP4_FIRST_BOX = Buffer.concat([
  Buffer.from([0, 0, 0, 24]),
  Buffer.from('ftypisom'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isommp42'),
]);

/**
 * `bytes` of a pattern after an MP4's first box, 64 KiB at a time from one buffer, hashed as
 * they are sent.
 */
function body(bytes: number) {
  const chunk = Buffer.alloc(CHUNK);
  for (let i = 0; i < CHUNK; i++) chunk[i] = (i * 31 + 7) % 251;
  const first = Buffer.from(chunk);
  MP4_FIRST_BOX.copy(first);
  const hash = createHash('sha256');
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= bytes) {
        this.push(null);
        return;
      }
      const part = (sent === 0 ? first : chunk).subarray(0, Math.min(CHUNK, bytes - sent));
      sent += part.length;
      hash.update(part);
      this.push(part);
    },
  });
  return { stream, sha256: () => hash.digest('hex') };
}

async function send(url: string, key: string, bytes: number): Promise<string | null> {
  const payload = body(bytes);
  const answer = await request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'video/mp4',
      'content-length': String(bytes),
    },
    body: payload.stream,
    headersTimeout: 30 * 60_000,
    bodyTimeout: 30 * 60_000,
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 201) throw new Error(`upload answered ${answer.statusCode}: ${text}`);
  const parsed = JSON.parse(text) as { data?: { size: number; sha256: string } };
  if (parsed.data) {
    if (parsed.data.size !== bytes || parsed.data.sha256 !== payload.sha256()) {
      throw new Error(
        `stored ${parsed.data.size} bytes (sha256 ${parsed.data.sha256}), sent ${bytes}`,
      );
    }
    return parsed.data.sha256;
  }
  return null;
}

async function uploadOnce(kind: 'adapter' | 'floor', bytes: number): Promise<RunResult> {
  const receiver = await startChild(
    new URL('./media-run.ts', import.meta.url),
    { MEDIA_KIND: kind },
    ['--expose-gc'],
  );
  try {
    const { url, key } = receiver.ready as unknown as { url: string; key: string };
    // Warm-up: parsers, pools and the JIT set up before measuring.
    await send(url, key, MB);
    receiver.send({ type: 'go' });
    await receiver.next('going');
    const meter = startCpuMeter([{ label: 'receiver', pids: () => [receiver.pid] }]);
    const started = performance.now();
    await send(url, key, bytes);
    const ms = performance.now() - started;
    const cpu = meter.stop();
    receiver.send({ type: 'stop' });
    const done = await receiver.next<{
      type: 'stopped';
      rssBefore: number;
      rssPeak: number;
      maxRssGrowth: number;
      buffersGrowthAtPeak: number;
      heapGrowthAtPeak: number;
    }>('stopped');
    return {
      ms,
      growth: Math.max(done.rssPeak - done.rssBefore, done.maxRssGrowth),
      rssBefore: done.rssBefore,
      buffersGrowth: done.buffersGrowthAtPeak,
      heapGrowth: done.heapGrowthAtPeak,
      cpu: cpuLine(cpu),
    };
  } finally {
    await receiver.close();
  }
}

async function run(options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const bytes = options.smoke
    ? 16 * MB
    : process.env.BENCH_MEDIA_MB
      ? Number(process.env.BENCH_MEDIA_MB) * MB
      : 2 * GB;
  const runs = options.smoke ? 1 : 3;
  out(
    `media: ${fmt(bytes / MB, 0)} MB through POST /media (embedded runtime, local store) vs a bare node:http pipe to a file, ${runs} runs each`,
  );
  const adapter: RunResult[] = [];
  const floor: RunResult[] = [];
  for (let index = 1; index <= runs; index++) {
    const result = await uploadOnce('adapter', bytes);
    adapter.push(result);
    out(
      `media POST /media run ${index}: ${fmt(result.ms / 1000, 2)} s (${fmt(bytes / MB / (result.ms / 1000), 0)} MB/s), RSS ${fmt(result.rssBefore / MB, 0)} MB before, peak growth ${fmt(result.growth / MB, 1)} MB (at the peak: Buffers +${fmt(result.buffersGrowth / MB, 1)} MB, JS heap +${fmt(result.heapGrowth / MB, 1)} MB); ${result.cpu}`,
    );
    const bare = await uploadOnce('floor', bytes);
    floor.push(bare);
    out(
      `media floor (bare pipe) run ${index}: ${fmt(bare.ms / 1000, 2)} s (${fmt(bytes / MB / (bare.ms / 1000), 0)} MB/s), RSS ${fmt(bare.rssBefore / MB, 0)} MB before, peak growth ${fmt(bare.growth / MB, 1)} MB (Buffers +${fmt(bare.buffersGrowth / MB, 1)} MB, JS heap +${fmt(bare.heapGrowth / MB, 1)} MB); ${bare.cpu}`,
    );
  }
  const growth = median(adapter.map((r) => r.growth / MB));
  const speed = median(adapter.map((r) => bytes / MB / (r.ms / 1000)));
  const floorGrowth = median(floor.map((r) => r.growth / MB));
  const floorSpeed = median(floor.map((r) => bytes / MB / (r.ms / 1000)));
  const ratios = growthRatios(adapter, floor);
  const growthRatio = median(ratios);
  out(
    `media: peak RSS growth ${fmt(growth, 1)} MB (runs ${fmtRuns(
      adapter.map((r) => r.growth / MB),
      1,
    )}), ${fmt(speed, 0)} MB/s; floor ${fmt(floorGrowth, 1)} MB, ${fmt(floorSpeed, 0)} MB/s; RSS growth ratio to the floor ${fmt(growthRatio, 2)} (runs ${fmtRuns(ratios, 2)}); throughput ratio ${fmt(speed / floorSpeed, 2)}`,
  );
  return [
    {
      bench: 'media',
      name: `media ${fmt(bytes / MB, 0)} MB POST /media: peak RSS growth`,
      value: growth,
      unit: 'MB',
      digits: 1,
    },
    {
      bench: 'media',
      name: 'media: peak RSS growth ratio to the bare pipe (same run)',
      value: growthRatio,
      unit: 'x',
      target: { op: '<=', value: 1.25 },
      digits: 2,
    },
    { bench: 'media', name: 'media: throughput', value: speed, unit: 'MB/s', digits: 0 },
    {
      bench: 'media',
      name: 'media: floor (bare pipe) peak RSS growth',
      value: floorGrowth,
      unit: 'MB',
      digits: 1,
    },
  ];
}

export const mediaBench: Bench = {
  name: 'media',
  run,
  async diagnose(options) {
    const result = await uploadOnce('adapter', options.smoke ? 16 * MB : 256 * MB);
    options.out(
      `media (diagnose): ${fmt(result.ms / 1000, 2)} s, peak RSS growth ${fmt(result.growth / MB, 1)} MB; ${result.cpu}`,
    );
  },
};
