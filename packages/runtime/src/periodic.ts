/**
 * A pass run every `intervalMs`, never overlapping itself: the next pass starts intervalMs
 * after the previous one ended, and a caller arriving during a pass shares it.
 */
export interface Periodic {
  /** Runs one pass now (or joins the running one). */
  runNow(): Promise<void>;
  start(): void;
  /** Stops scheduling and waits for a running pass. */
  stop(): Promise<void>;
}

export function periodic(pass: () => Promise<void>, intervalMs: number): Periodic {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  const runNow = (): Promise<void> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void runNow().then(schedule);
    }, intervalMs);
  };
  return {
    runNow: () => (stopped ? Promise.resolve() : runNow()),
    start: schedule,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
