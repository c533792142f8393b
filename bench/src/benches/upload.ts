/**
 * upload: one 2 GB video through the YouTube publisher into the fake YouTube, the media coming
 * from the fake media server (both in a helper process). The uploader runs in a fresh process
 * of its own; its peak RSS growth over the upload is the adapter's memory cost.
 * Floor: the same bytes through a bare undici GET -> PUT pipe (throughput and RSS). The memory
 * target is the adapter's growth against the pipe's in the same run (each adapter run paired
 * with the pipe run after it): an absolute figure mostly measures Node's and undici's own
 * buffers on the machine of the day, which the pipe pays too.
 */
import type { Bench, BenchOptions } from '../lib/bench.ts';
import { type Child, startChild } from '../lib/child.ts';
import { cpuLine, startCpuMeter } from '../lib/cpu.ts';
import type { Figure } from '../lib/report.ts';
import { fmt, fmtRuns, growthRatios, median } from '../lib/stats.ts';

const MB = 1024 * 1024;
const GB = 1024 * MB;

interface UploadResult {
  ms: number;
  growth: number;
  rssBefore: number;
  /** At the RSS peak: growth of Buffer memory and of the JS heap since the start. */
  buffersGrowth: number;
  heapGrowth: number;
  /** CPU of the uploader and of the fakes during the upload. */
  cpu: string;
}

async function uploadOnce(
  fakes: Child,
  kind: 'adapter' | 'floor',
  bytes: number,
  run: number,
): Promise<UploadResult> {
  fakes.send({ type: 'media-url', name: `bench-${kind}-${run}.mp4`, size: bytes });
  const { url } = await fakes.next<{ type: 'media-url'; url: string }>('media-url');
  const uploader = await startChild(
    new URL('./upload-run.ts', import.meta.url),
    {
      UPLOAD_KIND: kind,
      YOUTUBE_BASE_URL: String(fakes.ready.youtube),
      MEDIA_URL: url,
      UPLOAD_BYTES: String(bytes),
    },
    ['--expose-gc'],
  );
  try {
    const meter = startCpuMeter([
      { label: 'uploader', pids: () => [uploader.pid] },
      { label: 'fake youtube + media server', pids: () => [fakes.pid] },
    ]);
    uploader.send({ type: 'go' });
    const done = await uploader.next<{
      type: 'done';
      error?: string;
      ms: number;
      rssBefore: number;
      rssPeak: number;
      maxRssGrowth: number;
      buffersGrowthAtPeak: number;
      heapGrowthAtPeak: number;
    }>('done', 30 * 60_000);
    const cpu = meter.stop();
    if (done.error) throw new Error(`${kind} upload failed: ${done.error}`);
    fakes.send({ type: 'sessions' });
    const { sessions } = await fakes.next<{
      type: 'sessions';
      sessions: Array<{ receivedBytes: number; patternOk: boolean; uploads: number }>;
    }>('sessions');
    const session = sessions.at(-1);
    if (!session || session.receivedBytes !== bytes || !session.patternOk) {
      throw new Error(
        `${kind} upload: the fake holds ${session?.receivedBytes} of ${bytes} bytes (pattern ok: ${session?.patternOk})`,
      );
    }
    return {
      ms: done.ms,
      growth: Math.max(done.rssPeak - done.rssBefore, done.maxRssGrowth),
      rssBefore: done.rssBefore,
      buffersGrowth: done.buffersGrowthAtPeak,
      heapGrowth: done.heapGrowthAtPeak,
      cpu: cpuLine(cpu),
    };
  } finally {
    await uploader.close();
  }
}

async function run(options: BenchOptions): Promise<Figure[]> {
  const { out } = options;
  const bytes = options.smoke
    ? 16 * MB
    : process.env.BENCH_UPLOAD_MB
      ? Number(process.env.BENCH_UPLOAD_MB) * MB
      : 2 * GB;
  const runs = options.smoke ? 1 : 3;
  const fakes = await startChild(new URL('./upload-fakes.ts', import.meta.url));
  try {
    out(
      `upload: ${fmt(bytes / MB, 0)} MB video, YouTube resumable upload through the fake, media from the fake media server, ${runs} runs each`,
    );
    const adapter: UploadResult[] = [];
    const floor: UploadResult[] = [];
    for (let index = 1; index <= runs; index++) {
      const result = await uploadOnce(fakes, 'adapter', bytes, index);
      adapter.push(result);
      out(
        `upload adapter run ${index}: ${fmt(result.ms / 1000, 2)} s (${fmt(bytes / MB / (result.ms / 1000), 0)} MB/s), RSS ${fmt(result.rssBefore / MB, 0)} MB before, peak growth ${fmt(result.growth / MB, 1)} MB (at the peak: Buffers +${fmt(result.buffersGrowth / MB, 1)} MB, JS heap +${fmt(result.heapGrowth / MB, 1)} MB); ${result.cpu}`,
      );
      const bare = await uploadOnce(fakes, 'floor', bytes, index);
      floor.push(bare);
      out(
        `upload floor (bare undici pipe) run ${index}: ${fmt(bare.ms / 1000, 2)} s (${fmt(bytes / MB / (bare.ms / 1000), 0)} MB/s), peak growth ${fmt(bare.growth / MB, 1)} MB (Buffers +${fmt(bare.buffersGrowth / MB, 1)} MB, JS heap +${fmt(bare.heapGrowth / MB, 1)} MB); ${bare.cpu}`,
      );
    }
    const growth = median(adapter.map((r) => r.growth / MB));
    const speed = median(adapter.map((r) => bytes / MB / (r.ms / 1000)));
    const floorGrowth = median(floor.map((r) => r.growth / MB));
    const floorSpeed = median(floor.map((r) => bytes / MB / (r.ms / 1000)));
    const ratios = growthRatios(adapter, floor);
    const growthRatio = median(ratios);
    out(
      `upload: peak RSS growth ${fmt(growth, 1)} MB (runs ${fmtRuns(
        adapter.map((r) => r.growth / MB),
        1,
      )}), ${fmt(speed, 0)} MB/s; floor ${fmt(floorGrowth, 1)} MB, ${fmt(floorSpeed, 0)} MB/s; RSS growth ratio to the floor ${fmt(growthRatio, 2)} (runs ${fmtRuns(ratios, 2)}); throughput ratio ${fmt(speed / floorSpeed, 2)}`,
    );
    return [
      {
        bench: 'upload',
        name: `upload ${fmt(bytes / MB, 0)} MB: peak RSS growth`,
        value: growth,
        unit: 'MB',
        digits: 1,
      },
      {
        bench: 'upload',
        name: 'upload: peak RSS growth ratio to the bare pipe (same run)',
        value: growthRatio,
        unit: 'x',
        target: { op: '<=', value: 1.25 },
        digits: 2,
      },
      { bench: 'upload', name: 'upload: throughput', value: speed, unit: 'MB/s', digits: 0 },
      {
        bench: 'upload',
        name: 'upload: floor (bare pipe) peak RSS growth',
        value: floorGrowth,
        unit: 'MB',
        digits: 1,
      },
      {
        bench: 'upload',
        name: 'upload: throughput ratio to floor',
        value: speed / floorSpeed,
        unit: 'x',
        digits: 2,
      },
    ];
  } finally {
    await fakes.close();
  }
}

export const uploadBench: Bench = {
  name: 'upload',
  run,
  async diagnose(options) {
    const { out } = options;
    const bytes = options.smoke ? 16 * MB : 512 * MB;
    const fakes = await startChild(new URL('./upload-fakes.ts', import.meta.url));
    try {
      const result = await uploadOnce(fakes, 'adapter', bytes, 99);
      out(
        `upload (diagnose, ${fmt(bytes / MB, 0)} MB): ${fmt(result.ms / 1000, 2)} s, peak RSS growth ${fmt(result.growth / MB, 1)} MB; ${result.cpu}`,
      );
      out(
        'upload: for a CPU profile of the uploader run: node --cpu-prof bench/src/benches/upload-run.ts (see bench/README.md)',
      );
    } finally {
      await fakes.close();
    }
  },
};
