/**
 * A CPU profile of this process (node:inspector) around a piece of work, summarised as plain
 * lines: self time by area (our packages, each dependency, Node internals, GC, idle) and the
 * top functions by self time.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fmt } from './stats.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by area, largest first. */
  areas: Array<{ area: string; ms: number; percent: number }>;
  /** Self time by function, largest first. */
  functions: Array<{ name: string; where: string; area: string; ms: number; percent: number }>;
}

/** `packages/domain`, `bench`, `pg`, `bullmq`, `node:internal`, `(garbage collector)`, ... */
export function areaOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName.startsWith('(')) return functionName;
    return '(native)';
  }
  if (url.startsWith('node:')) return 'node:internal';
  const path = url.replace(/^file:\/\//, '');
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pnpm?.[1]) return pnpm[1];
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (plain?.[1]) return plain[1];
  const ours = /\/(packages\/[^/]+|bench)\//.exec(path);
  if (ours?.[1]) return ours[1];
  return path;
}

function shortWhere(url: string, line: number): string {
  if (url === '') return '';
  const path = url.replace(/^file:\/\//, '');
  const tail =
    /(packages\/.*|bench\/.*)$/.exec(path)?.[1] ??
    /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(.*)$/.exec(path)?.[1] ??
    path;
  return `${tail}:${line + 1}`;
}

export function summarise(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index] as number;
    const delta = profile.timeDeltas[index + 1] ?? profile.timeDeltas[index] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, delta));
  }
  const totalUs = [...selfUs.values()].reduce((sum, value) => sum + value, 0) || 1;
  const areas = new Map<string, number>();
  const functions = new Map<string, { name: string; where: string; area: string; us: number }>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const name = functionName || '(anonymous)';
    const where = shortWhere(url, lineNumber);
    const key = `${name}|${where}`;
    const entry = functions.get(key) ?? { name, where, area, us: 0 };
    entry.us += us;
    functions.set(key, entry);
  }
  const percent = (us: number) => (us / totalUs) * 100;
  return {
    totalMs: totalUs / 1000,
    areas: [...areas.entries()]
      .map(([area, us]) => ({ area, ms: us / 1000, percent: percent(us) }))
      .sort((a, b) => b.ms - a.ms),
    functions: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((entry) => ({
        name: entry.name,
        where: entry.where,
        area: entry.area,
        ms: entry.us / 1000,
        percent: percent(entry.us),
      })),
  };
}

/** Profiles this process while `work` runs (sampling every `intervalUs` microseconds). */
export async function profile<T>(
  work: () => Promise<T>,
  intervalUs = 200,
): Promise<{ result: T; summary: ProfileSummary }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    let result: T | undefined;
    let failure: { error: unknown } | undefined;
    try {
      result = await work();
    } catch (error) {
      failure = { error };
    }
    const stopped = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    await session.post('Profiler.disable');
    if (failure) throw failure.error;
    // The whole profile for a closer look (Chrome DevTools, speedscope), when asked for.
    const file = process.env.BENCH_CPUPROFILE;
    if (file) writeFileSync(file, JSON.stringify(stopped.profile));
    return { result: result as T, summary: summarise(stopped.profile) };
  } finally {
    session.disconnect();
  }
}

export function profileLines(summary: ProfileSummary, label: string): string[] {
  const busy = summary.areas.filter((area) => area.area !== '(idle)');
  const busyMs = busy.reduce((sum, area) => sum + area.ms, 0);
  const idle = summary.areas.find((area) => area.area === '(idle)');
  const lines = [
    `profile ${label}: ${fmt(summary.totalMs / 1000, 2)} s sampled, busy ${fmt(busyMs / 1000, 2)} s, idle ${fmt((idle?.ms ?? 0) / 1000, 2)} s (waiting on I/O)`,
    `profile ${label}: self time by area (share of busy time):`,
  ];
  for (const area of busy.slice(0, 14)) {
    lines.push(`  ${fmt((area.ms / (busyMs || 1)) * 100, 1).padStart(5)}%  ${area.area}`);
  }
  lines.push(`profile ${label}: top functions by self time (share of busy time):`);
  for (const fn of summary.functions.filter((f) => f.area !== '(idle)').slice(0, 15)) {
    lines.push(
      `  ${fmt((fn.ms / (busyMs || 1)) * 100, 1).padStart(5)}%  ${fn.name}  ${fn.where || fn.area}`,
    );
  }
  return lines;
}
