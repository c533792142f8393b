import type { RateLimitHit, RateLimitStore } from './store.ts';

/** Past this many keys, ended windows are swept before a new key is added. */
const SWEEP_THRESHOLD = 10_000;

/** Fixed windows in a Map: right for a single API process (the embedded mode). */
export function createMemoryRateLimitStore(now: () => number = Date.now): RateLimitStore {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const sweep = (at: number) => {
    for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
  };
  return {
    async hit(key, windowMs): Promise<RateLimitHit> {
      const at = now();
      let window = windows.get(key);
      if (!window || window.endsAt <= at) {
        if (!window && windows.size >= SWEEP_THRESHOLD) sweep(at);
        window = { count: 0, endsAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetInMs: window.endsAt - at };
    },
    async peek(key, windowMs): Promise<RateLimitHit> {
      const at = now();
      const window = windows.get(key);
      if (!window || window.endsAt <= at) return { count: 0, resetInMs: windowMs };
      return { count: window.count, resetInMs: window.endsAt - at };
    },
    async close() {
      windows.clear();
    },
  };
}
