/**
 * Where the CPU went during a measurement: this process, the database, Redis and helper
 * processes (load generator, receivers), as a percentage of one core; plus the rest of the
 * machine, the time the host stole from this VM, and idle. Read from /proc (Linux); processes
 * not visible from here (a server in another container) are reported as n/a.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fmt } from './stats.ts';

const CLOCK_TICKS = 100; // USER_HZ on Linux

function readTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may contain spaces: fields start after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14, 15)
  } catch {
    return null;
  }
}

function pidsByName(names: readonly string[]): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (names.includes(comm)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** PostgreSQL backends serving `database` (their command line names it): one run's own. */
export function postgresBackendsOf(database: string): () => number[] {
  return () =>
    pidsByName(['postgres']).filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return args.split(' ').includes(database);
      } catch {
        return false;
      }
    });
}

/** Busy (not idle, not stolen) and stolen jiffies of the whole machine, from /proc/stat. */
function machineTicks(): { busy: number; steal: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0); // idle + iowait
    const steal = values[7] ?? 0;
    const guest = (values[8] ?? 0) + (values[9] ?? 0); // already counted in user and nice
    const total = values.reduce((sum, value) => sum + value, 0);
    return { busy: total - idle - steal - guest, steal };
  } catch {
    return null;
  }
}

export interface CpuGroup {
  label: string;
  /** Fixed pids, or process names looked up at start and end. */
  pids?: () => number[];
  names?: string[];
}

function groupPids(group: CpuGroup): number[] {
  return group.pids ? group.pids() : pidsByName(group.names ?? []);
}

export interface CpuReading {
  label: string;
  /** Percent of one core over the window; null when no process of the group is visible. */
  percent: number | null;
}

export interface CpuMeter {
  stop(): CpuReading[];
}

/** This process, every PostgreSQL process of the machine, Redis. */
export const DEFAULT_GROUPS: CpuGroup[] = [
  { label: 'bench process', pids: () => [process.pid] },
  { label: 'postgres', names: ['postgres'] },
  { label: 'redis', names: ['redis-server'] },
];

/**
 * This process, and in production mode the run's own PostgreSQL backends (found by database
 * name) and Redis; the embedded mode has everything in this process.
 */
export function groupsFor(database: string | null): CpuGroup[] {
  if (!database) return [{ label: 'bench process', pids: () => [process.pid] }];
  return [
    { label: 'bench process', pids: () => [process.pid] },
    { label: 'postgres (this run)', pids: postgresBackendsOf(database) },
    { label: 'redis', names: ['redis-server'] },
  ];
}

/**
 * Measures each group's CPU from now until stop(); stop() adds `other processes` (the rest of
 * the machine: other jobs sharing it), `stolen by host` (steal time of this VM) and `idle`.
 */
export function startCpuMeter(groups: CpuGroup[] = DEFAULT_GROUPS): CpuMeter {
  const startedAt = performance.now();
  const machineBefore = machineTicks();
  const before = groups.map((group) => {
    const ticks = new Map<number, number>();
    for (const pid of groupPids(group)) {
      const value = readTicks(pid);
      if (value !== null) ticks.set(pid, value);
    }
    return ticks;
  });
  return {
    stop() {
      const seconds = (performance.now() - startedAt) / 1000;
      const percent = (ticks: number) => (ticks / CLOCK_TICKS / seconds) * 100;
      const readings: CpuReading[] = groups.map((group, index) => {
        const pids = groupPids(group);
        if (pids.length === 0 && (before[index]?.size ?? 0) === 0) {
          return { label: group.label, percent: null };
        }
        let ticks = 0;
        for (const pid of pids) {
          const now = readTicks(pid);
          if (now === null) continue;
          // A process started during the window counts from zero.
          ticks += now - (before[index]?.get(pid) ?? 0);
        }
        return { label: group.label, percent: percent(ticks) };
      });
      const machineAfter = machineTicks();
      if (machineBefore !== null && machineAfter !== null) {
        const busy = percent(machineAfter.busy - machineBefore.busy);
        const steal = percent(machineAfter.steal - machineBefore.steal);
        const ours = readings.reduce((sum, reading) => sum + (reading.percent ?? 0), 0);
        readings.push({ label: 'other processes', percent: Math.max(0, busy - ours) });
        readings.push({ label: 'stolen by host', percent: steal });
        readings.push({
          label: 'idle',
          percent: Math.max(0, availableParallelism() * 100 - busy - steal),
        });
      }
      return readings;
    },
  };
}

export function cpuLine(readings: CpuReading[]): string {
  return `cpu (% of one core; ${availableParallelism()} cores): ${readings
    .map(
      (reading) => `${reading.label} ${reading.percent === null ? 'n/a' : fmt(reading.percent, 0)}`,
    )
    .join(', ')}`;
}
