/** Event-loop delay of this process over a window: how long ready callbacks waited to run. */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fmt } from './stats.ts';

const RESOLUTION_MS = 5;

export function startLoopMonitor(): { stop(): string } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  return {
    stop() {
      histogram.disable();
      // The histogram holds the time between two sampling ticks: the tick itself is not delay.
      const ms = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
      return `event-loop delay: p50 ${fmt(ms(histogram.percentile(50)))} ms, p99 ${fmt(ms(histogram.percentile(99)))} ms, max ${fmt(ms(histogram.max))} ms`;
    },
  };
}
