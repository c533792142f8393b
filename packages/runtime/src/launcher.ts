/**
 * pnpm 10 relays a SIGTERM it receives to the shell that runs the script, not to the script:
 * the shell dies at once and node keeps serving, an orphan nobody will stop (pnpm/pnpm#7374;
 * pnpm 11 signals the script's process group instead). So `kill <pid of pnpm start>` (what
 * `./dev start`, a service manager or a container runtime sends) must be noticed another way:
 * when the process was launched by a package-manager script and its parent goes away, it
 * shuts down as on SIGTERM. A process started with `node` directly is left alone (its parent
 * may exit on purpose, e.g. `nohup`).
 */
export function onLauncherGone(
  callback: () => void,
  options: { intervalMs?: number; env?: NodeJS.ProcessEnv } = {},
): () => void {
  const env = options.env ?? process.env;
  if (!env.npm_lifecycle_event) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    callback();
  }, options.intervalMs ?? 500);
  timer.unref();
  return () => clearInterval(timer);
}
