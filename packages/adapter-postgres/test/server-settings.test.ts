// The server settings checked when the database opens: a PostgreSQL server with autovacuum off
// is said in one warning (the service still works, slower as its tables grow).
import { MemoryLogger } from '@social-publisher/domain/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { serverSetting } from '../../testkit/src/postgres.ts';
import { createKysely } from '../src/database.ts';
import { openDatabase } from '../src/index.ts';
import { autovacuumWarning, warnAboutServerSettings } from '../src/server-settings.ts';
import { createPostgresDatabase } from './backends.ts';

describe('autovacuumWarning', () => {
  it('warns only when the server says off', () => {
    expect(autovacuumWarning('off')).toMatch(/autovacuum is off/);
    expect(autovacuumWarning('on')).toBeNull();
    expect(autovacuumWarning(undefined)).toBeNull();
  });
});

const database = await createPostgresDatabase();

if (database.skipReason !== undefined) {
  describe('server settings on PostgreSQL', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  const url = database.url;
  afterAll(() => database.drop());

  const autovacuumWarnings = (logger: MemoryLogger) =>
    logger.at('warn').filter((entry) => /autovacuum/.test(entry.msg ?? ''));

  describe('server settings on PostgreSQL', () => {
    it('opening the database warns once about autovacuum exactly when the server has it off', async () => {
      const logger = new MemoryLogger();
      const handle = await openDatabase({
        databaseUrl: url,
        dataDir: '.data',
        logger,
        checkServerSettings: true,
      });
      try {
        const off = (await serverSetting(url, 'autovacuum')) === 'off';
        expect(autovacuumWarnings(logger)).toHaveLength(off ? 1 : 0);
        if (off)
          expect(autovacuumWarnings(logger)[0]?.obj).toEqual({
            setting: 'autovacuum',
            value: 'off',
          });
      } finally {
        await handle.close();
      }
    });

    it('a one-shot command (no checkServerSettings) is not told', async () => {
      const logger = new MemoryLogger();
      const handle = await openDatabase({ databaseUrl: url, dataDir: '.data', logger });
      try {
        expect(autovacuumWarnings(logger)).toEqual([]);
      } finally {
        await handle.close();
      }
    });

    it('says nothing, and does not throw, when the server does not answer', async () => {
      const { db } = createKysely({
        databaseUrl: 'postgres://postgres@127.0.0.1:1/none',
        dataDir: '.data',
      });
      const logger = new MemoryLogger();
      try {
        await warnAboutServerSettings(db, logger);
        expect(logger.at('warn')).toEqual([]);
      } finally {
        await db.destroy();
      }
    });
  });
}
