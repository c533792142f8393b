import { errorMessage, type Logger } from '@social-publisher/domain';

/** What a runtime opened, closed in reverse order; one failing to close does not stop the rest. */
export interface Closers {
  add(name: string, close: () => Promise<void>): void;
  closeAll(): Promise<void>;
}

export function createClosers(logger: Logger): Closers {
  const closers: Array<{ name: string; close: () => Promise<void> }> = [];
  return {
    add: (name, close) => {
      closers.push({ name, close });
    },
    closeAll: async () => {
      for (const { name, close } of [...closers].reverse()) {
        try {
          await close();
        } catch (error) {
          logger.warn({ component: name, err: errorMessage(error) }, 'error while closing');
        }
      }
    },
  };
}
