/**
 * Event-loop delay and garbage collection of this process over a window: how long ready
 * callbacks waited to run, and how much of that the collector's pauses explain.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fmt } from './stats.ts';

const RESOLUTION_MS = 5;

export function startLoopMonitor(): { stop(): string } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const pauses = { minor: 0, major: 0, totalMs: 0, maxMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) pauses.major += 1;
      else pauses.minor += 1;
      pauses.totalMs += entry.duration;
      pauses.maxMs = Math.max(pauses.maxMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      histogram.disable();
      observer.disconnect();
      // The histogram holds the time between two sampling ticks: the tick itself is not delay.
      const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
      const heapMb = process.memoryUsage().heapUsed / 1024 / 1024;
      return `event-loop delay: p50 ${fmt(ms(histogram.percentile(50)))} ms, p99 ${fmt(ms(histogram.percentile(99)))} ms, max ${fmt(ms(histogram.max))} ms; gc: ${pauses.minor} minor + ${pauses.major} major, ${fmt(pauses.totalMs, 0)} ms in all, longest ${fmt(pauses.maxMs, 1)} ms, heap ${fmt(heapMb, 0)} MB`;
    },
  };
}
