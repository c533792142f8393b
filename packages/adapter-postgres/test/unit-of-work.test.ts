// Adapter behaviour beyond the port contract, on both backends: what the unit of work does
// with concurrency, nesting and misuse; PGlite persistence; the health check.
import {
  makeApiKey,
  makeUser,
  seedUser,
} from '@social-publisher/domain/contracts/storage-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/index.ts';
import {
  type Backend,
  createPostgresDatabase,
  openPgliteBackend,
  openPostgresBackend,
} from './backends.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function describeUnitOfWork(name: string, open: () => Promise<Backend>) {
  describe(`${name}: unit of work`, () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(async () => {
      await backend?.close();
    });

    it('a nested run joins the outer transaction (and rolls back with it)', async () => {
      const { uow, repos } = backend.handle;
      const outer = makeUser();
      const inner = makeUser();
      await expect(
        uow.run(async (tx) => {
          await tx.accounts.createUser(outer);
          await uow.run(async (nested) => {
            await nested.accounts.createUser(inner);
            expect(await nested.accounts.findUserById(outer.id)).toEqual(outer);
          });
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await repos.accounts.findUserById(outer.id)).toBeNull();
      expect(await repos.accounts.findUserById(inner.id)).toBeNull();
    });

    it('refuses the non-transactional repositories inside run() with a clear error', async () => {
      const { uow, repos } = backend.handle;
      const user = makeUser();
      await expect(
        uow.run(async (tx) => {
          await tx.accounts.createUser(user);
          return repos.accounts.findUserById(user.id);
        }),
      ).rejects.toThrow(/non-transactional repository was used inside uow.run/);
      expect(await repos.accounts.findUserById(user.id)).toBeNull();
    });

    it('work that outlives its transaction may use the plain repositories again', async () => {
      const { uow, repos } = backend.handle;
      const user = makeUser();
      let later: Promise<unknown> = Promise.resolve();
      await uow.run(async (tx) => {
        await tx.accounts.createUser(user);
        later = sleep(20).then(() => repos.accounts.findUserById(user.id));
      });
      await expect(later).resolves.toEqual(user);
    });

    it('concurrent units of work each commit or roll back on their own', async () => {
      const { uow, repos } = backend.handle;
      const users = Array.from({ length: 12 }, () => makeUser());
      const outcomes = await Promise.allSettled(
        users.map((user, index) =>
          uow.run(async (tx) => {
            await tx.accounts.createUser(user);
            await sleep(index % 3);
            if (index % 2 === 1) throw new Error(`rollback ${index}`);
            return user.id;
          }),
        ),
      );
      for (const [index, user] of users.entries()) {
        expect(outcomes[index]?.status).toBe(index % 2 === 1 ? 'rejected' : 'fulfilled');
        const found = await repos.accounts.findUserById(user.id);
        if (index % 2 === 1) expect(found).toBeNull();
        else expect(found).toEqual(user);
      }
    });

    it('count-then-insert below a limit holds under concurrent units of work', async () => {
      const { uow, repos } = backend.handle;
      const user = await seedUser(repos);
      const created = await Promise.all(
        Array.from({ length: 15 }, () =>
          uow.run(async (tx) => {
            if ((await tx.apiKeys.countByAccount(user.id)) >= 10) return false;
            await sleep(2);
            await tx.apiKeys.insert(makeApiKey(user.id, user.id));
            return true;
          }),
        ),
      );
      expect(created.filter(Boolean)).toHaveLength(10);
      expect(await repos.apiKeys.countByAccount(user.id)).toBe(10);
    });

    it('health ping answers true while open', async () => {
      expect(await backend.handle.health.ping()).toBe(true);
    });
  });
}

describeUnitOfWork('pglite', () => openPgliteBackend());

describe('pglite: single connection', () => {
  let backend: Awaited<ReturnType<typeof openPgliteBackend>>;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('serialises units of work: they never interleave', async () => {
    const { uow } = backend.handle;
    const log: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        uow.run(async (tx) => {
          log.push(`begin ${index}`);
          await tx.accounts.createUser(makeUser());
          await sleep(3);
          await tx.accounts.countUsers();
          log.push(`end ${index}`);
        }),
      ),
    );
    for (let i = 0; i < log.length; i += 2) {
      const begin = log[i]?.split(' ')[1];
      expect(log[i + 1]).toBe(`end ${begin}`);
    }
  });

  it('a plain query waits for the running transaction and sees its commit', async () => {
    const { uow, repos } = backend.handle;
    const user = makeUser();
    let committed = false;
    const transaction = uow.run(async (tx) => {
      await tx.accounts.createUser(user);
      await sleep(50);
      committed = true;
    });
    await sleep(5);
    const found = await repos.accounts.findUserById(user.id);
    expect(committed).toBe(true);
    expect(found).toEqual(user);
    await transaction;
  });

  it('persists under DATA_DIR across close and reopen; migrations are a no-op then', async () => {
    const user = makeUser();
    await backend.handle.repos.accounts.createUser(user);
    await backend.handle.close();
    const reopened = await openDatabase({ dataDir: backend.dataDir, migrate: true });
    try {
      expect(reopened.kind).toBe('pglite');
      expect(await reopened.repos.accounts.findUserById(user.id)).toEqual(user);
    } finally {
      await reopened.close();
    }
    expect(await backend.handle.health.ping()).toBe(false);
  });
});

const database = await createPostgresDatabase();
if (database.skipReason !== undefined) {
  describe('postgres: unit of work', () => {
    it.skip(`skipped: ${database.skipReason}`, () => {});
  });
} else {
  describeUnitOfWork('postgres', () => openPostgresBackend(database));
  afterAll(() => database.drop());
}
