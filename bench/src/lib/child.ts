/**
 * Helper processes (load generator, webhook receiver, fake platforms, the uploader), so that
 * their CPU and memory are not the measured process's. They talk JSON messages over IPC; the
 * child side uses `onParentMessage` / `toParent`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Message {
  type: string;
  [key: string]: unknown;
}

export interface Child {
  pid: number;
  /** The child's first message (type `ready`), e.g. the URL it listens on. */
  ready: Message;
  send(message: Message): void;
  /** The next message of `type` (messages are queued until asked for). */
  next<T extends Message = Message>(type: string, timeoutMs?: number): Promise<T>;
  /** Asks the child to exit, then kills it if it did not within 3 s. */
  close(): Promise<void>;
}

export async function startChild(
  file: URL,
  env: Record<string, string> = {},
  extraExecArgv: string[] = [],
): Promise<Child> {
  const child: ChildProcess = fork(fileURLToPath(file), [], {
    execArgv: ['--disable-warning=ExperimentalWarning', ...extraExecArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const queued: Message[] = [];
  const waiters: Array<{
    type: string;
    resolve: (m: Message) => void;
    reject: (e: Error) => void;
  }> = [];
  let exited: Error | undefined;
  child.on('message', (raw) => {
    const message = raw as Message;
    const index = waiters.findIndex((waiter) => waiter.type === message.type);
    if (index >= 0) {
      const [waiter] = waiters.splice(index, 1);
      waiter?.resolve(message);
    } else {
      queued.push(message);
    }
  });
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = new Error(`helper ${file.pathname} exited (${code ?? signal})`);
      for (const waiter of waiters.splice(0)) waiter.reject(exited);
      resolve();
    });
  });
  const handle: Omit<Child, 'ready'> = {
    pid: child.pid ?? -1,
    send: (message) => {
      child.send(message);
    },
    next<T extends Message>(type: string, timeoutMs = 60_000): Promise<T> {
      const index = queued.findIndex((message) => message.type === type);
      if (index >= 0) return Promise.resolve(queued.splice(index, 1)[0] as T);
      if (exited) return Promise.reject(exited);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          const at = waiters.findIndex((waiter) => waiter.resolve === done);
          if (at >= 0) waiters.splice(at, 1);
          reject(new Error(`helper ${file.pathname}: no "${type}" after ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (message: Message) => {
          clearTimeout(timer);
          resolve(message as T);
        };
        waiters.push({
          type,
          resolve: done,
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
      });
    },
    async close() {
      if (exited) return;
      if (child.connected) child.send({ type: 'exit' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
  // A child that failed to start says so by exiting.
  const ready = await handle.next('ready', 30_000);
  return { ...handle, ready };
}

/** Child side: handle messages from the parent; `exit` ends the process. */
export function onParentMessage(handler: (message: Message) => void | Promise<void>): void {
  process.on('message', (raw) => {
    const message = raw as Message;
    if (message.type === 'exit') {
      process.exit(0);
    }
    Promise.resolve(handler(message)).catch((error: unknown) => {
      toParent({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    });
  });
  process.on('disconnect', () => process.exit(0));
}

export function toParent(message: Message): void {
  process.send?.(message);
}
