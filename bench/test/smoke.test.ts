// Keeps the benchmarks working: each runs at its smoke size (seconds) and must produce its
// figures. No timing is asserted: on a shared machine the numbers mean nothing here.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BENCHES, type Figure } from '../src/index.ts';
import { serverUrls } from '../src/lib/infra.ts';

async function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname || '127.0.0.1', port: Number(port || defaultPort) });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const urls = serverUrls();
const servers = (await reachable(urls.databaseUrl, 5432)) && (await reachable(urls.redisUrl, 6379));

const EXPECTED: Record<string, RegExp[]> = {
  create: [
    /API req\/s/,
    /API p99 latency at half the floor/,
    /floor p99 latency at the same rate/,
    /API process CPU per request/,
    /floor, bare HTTP server/,
    /ratio API \/ bare HTTP floor/,
    /floor, no HTTP/,
  ],
  pipeline: [/targets\/s/, /SQL floor/, /ratio to SQL floor/, /queue floor/],
  schedule: [/single post lateness p99/, /due at once, all started after/, /bulk floor/],
  list: [/GET \/posts/, /floor \(raw SQL/, /ratio API \/ floor/],
  upload: [/peak RSS growth/, /throughput/],
  pacing: [/refused calls/, /other connections' posts started/, /hot connection's last call/],
  history: [/create p99/, /GET \/posts middle page/, /reconcile pass/, /finalize/],
  soak: [/create p99, last interval/, /not finished 10 s after/],
  import: [/dry run of \d+ rows/, /import of \d+ rows/],
  media: [/peak RSS growth ratio to the bare pipe/, /floor \(bare pipe\) peak RSS growth/],
  metrics: [/publish lateness p99 with \d+ due reads/, /targets read and stored per second/],
};

/**
 * Benchmarks measured in one mode only: PostgreSQL (upload, history, soak, metrics: what they
 * measure has no embedded form) or embedded (media: the API's own upload path and local store).
 */
const ONE_MODE = new Set(['upload', 'history', 'soak', 'media', 'metrics']);

describe.skipIf(!servers)(
  `benchmarks at smoke size${servers ? '' : ' (skipped: PostgreSQL or Redis not reachable)'}`,
  () => {
    for (const [name, patterns] of Object.entries(EXPECTED)) {
      it(`${name} produces its figures`, { timeout: 180_000 }, async () => {
        const lines: string[] = [];
        const bench = BENCHES[name];
        if (!bench) throw new Error(`no benchmark ${name}`);
        const figures: Figure[] = await bench.run({ smoke: true, out: (line) => lines.push(line) });
        expect(figures.length).toBeGreaterThan(0);
        for (const figure of figures) {
          expect(Number.isFinite(figure.value), `${figure.name} = ${figure.value}`).toBe(true);
        }
        for (const pattern of patterns) {
          expect(
            figures.some((figure) => pattern.test(figure.name)),
            `a figure matching ${pattern}`,
          ).toBe(true);
        }
        // Both modes where the benchmark has both.
        if (!ONE_MODE.has(name)) {
          expect(figures.some((figure) => figure.name.includes('postgres+redis'))).toBe(true);
          expect(figures.some((figure) => figure.name.includes('embedded'))).toBe(true);
        }
        expect(lines.length).toBeGreaterThan(0);
      });
    }

    it('covers every benchmark (one left out broke unseen once)', () => {
      expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(BENCHES).sort());
    });

    it('prints where the time goes (profile and per-port timings)', {
      timeout: 120_000,
    }, async () => {
      const lines: string[] = [];
      await BENCHES.pipeline?.diagnose(
        { smoke: true, out: (line) => lines.push(line) },
        'pipeline postgres+redis: targets/s',
      );
      expect(lines.some((line) => line.startsWith('profile '))).toBe(true);
      expect(lines.some((line) => line.startsWith('stages '))).toBe(true);
    });
  },
);
