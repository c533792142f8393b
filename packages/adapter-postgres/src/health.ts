import type { HealthCheck } from '@social-publisher/domain';
import { type Kysely, sql } from 'kysely';

/** `select 1` within `timeoutMs`; false on any error or timeout, never throws. */
export function createHealthCheck<DB>(db: Kysely<DB>, timeoutMs = 2_000): HealthCheck {
  return {
    async ping(): Promise<boolean> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
        timer.unref();
      });
      const query = sql`select 1 as ok`.execute(db).then(
        () => true,
        () => false,
      );
      try {
        return await Promise.race([query, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
