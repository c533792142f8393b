// A read replica (DATABASE_REPLICA_URL) against a real streaming replica started here: lists
// and metrics reads go there while it is caught up; writes never do; a replica that lags or is
// down sends those reads to the primary, never to an error, and is used again once it is well.

import type { Repositories } from '@social-publisher/domain';
import {
  makePost,
  makeSocialAccount,
  seedUser,
} from '@social-publisher/domain/contracts/storage-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ReplicaPair,
  replicaPairUnavailable,
  startReplicaPair,
} from '../../testkit/src/replica-pair.ts';
import { type DatabaseHandle, openDatabase } from '../src/index.ts';
import { lsnValue } from '../src/replica-monitor.ts';

const unavailable = replicaPairUnavailable();
const MAX_LAG_MS = 300;

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(unavailable !== undefined)(
  `read replica${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  () => {
    let pair: ReplicaPair;
    let handle: DatabaseHandle;
    let repos: Repositories;
    let userId: string;
    let accountId: string;
    let connectionId: string;

    /** A new post of the user, written on the primary. */
    async function writePost(): Promise<string> {
      const post = makePost(accountId, userId, { socialAccountIds: [connectionId] });
      await repos.posts.insert(post);
      return post.id;
    }

    const listed = async () =>
      (await repos.posts.listByCreator(userId, [accountId])).map((post) => post.id);

    beforeAll(async () => {
      pair = await startReplicaPair();
      handle = await openDatabase({
        databaseUrl: pair.primaryUrl,
        dataDir: '.',
        migrate: true,
        replica: { url: pair.replicaUrl, maxLagMs: MAX_LAG_MS, probeIntervalMs: 50 },
      });
      repos = handle.repos;
      const user = await seedUser(repos);
      userId = user.id;
      accountId = user.id;
      const connection = makeSocialAccount(accountId);
      await repos.socialAccounts.insert(connection);
      connectionId = connection.id;
      await until(() => handle.replica?.state() === 'usable', 'the replica to be usable');
    }, 60_000);

    afterAll(async () => {
      await handle?.close();
      pair?.close();
    });

    it('answers lists from the replica once it has caught up, and writes go to the primary', async () => {
      const id = await writePost();
      const before = { ...handle.replica?.counts };
      await until(async () => (await listed()).includes(id), 'the post to be listed');
      const after = handle.replica?.counts;
      expect(after?.replica).toBeGreaterThan(before.replica ?? 0);
      expect(await repos.posts.findById(id)).not.toBeNull();
    });

    it('sends reads to the primary while the replica lags, and back once it has caught up', async () => {
      await pair.pauseReplay();
      try {
        const id = await writePost();
        await until(() => handle.replica?.state() === 'lagging', 'the replica to lag');
        const primaryReads = handle.replica?.counts.primary ?? 0;
        expect(await listed()).toContain(id);
        expect(handle.replica?.counts.primary).toBe(primaryReads + 1);
      } finally {
        await pair.resumeReplay();
      }
      await until(() => handle.replica?.state() === 'usable', 'the replica to catch up');
    });

    it('answers from the primary when the replica is down, and uses it again after', async () => {
      pair.stopReplica();
      try {
        const id = await writePost();
        // Whether or not the monitor has noticed yet, the read answers, with the new post.
        expect(await listed()).toContain(id);
        await until(() => handle.replica?.state() === 'down', 'the replica to be down');
        expect(await listed()).toContain(id);
        expect(await repos.metrics.listByPost(id)).toEqual([]);
      } finally {
        pair.startReplica();
      }
      await until(() => handle.replica?.state() === 'usable', 'the replica to be back');
      const replicaReads = handle.replica?.counts.replica ?? 0;
      await listed();
      expect(handle.replica?.counts.replica).toBe(replicaReads + 1);
    });
  },
);

describe('WAL positions', () => {
  it('compare as numbers across the high word', () => {
    expect(lsnValue('1/0') > lsnValue('0/FFFFFFFF')).toBe(true);
    expect(lsnValue('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
  });
});
