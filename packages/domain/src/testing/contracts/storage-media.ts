/**
 * Contract of MediaRepository: hosted media per account, the posts that use them, and the
 * sweeper's expiry (null while an unfinished post uses a media, set once they are finished).
 *
 *   import { describeMediaRepositoryContract } from '@social-publisher/domain/contracts/storage-media';
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Media } from '../../media-model.ts';
import {
  ancient,
  newId,
  nextTime,
  plus,
  type StorageSetup,
  seedPost,
  seedUser,
  useStorage,
} from './storage-fixtures.ts';

const DAY = 86_400_000;

function makeMedia(accountId: string, createdBy: string, overrides: Partial<Media> = {}): Media {
  const createdAt = overrides.createdAt ?? nextTime();
  return {
    id: newId(),
    accountId,
    createdBy,
    name: `${randomBytes(16).toString('hex')}.mp4`,
    contentType: 'video/mp4',
    size: 5_000_000_000,
    sha256: randomBytes(32).toString('hex'),
    filename: 'clip.mp4',
    createdAt,
    expiresAt: plus(createdAt, 30 * DAY),
    ...overrides,
  };
}

export function describeMediaRepositoryContract(name: string, setup: StorageSetup): void {
  describe(`${name}: MediaRepository`, () => {
    const storage = useStorage(setup);
    const media = () => storage().repos.media;

    async function seedMedia(overrides: Partial<Media> = {}) {
      const user = await seedUser(storage().repos);
      const row = makeMedia(user.id, user.id, overrides);
      await media().insert(row);
      return { user, row };
    }

    it('stores a media and finds it by id and by name (sizes past 2^32 kept)', async () => {
      const { row } = await seedMedia();
      expect(await media().findById(row.id)).toEqual(row);
      expect(await media().findByNames([row.name, 'unknown.mp4'])).toEqual([row]);
      expect(await media().findByNames([])).toEqual([]);
      expect(await media().findById(newId())).toBeNull();
    });

    it('lists an account media newest first, a page at a time', async () => {
      const { user, row: first } = await seedMedia();
      const second = makeMedia(user.id, user.id);
      const third = makeMedia(user.id, user.id);
      await media().insert(second);
      await media().insert(third);
      const page = await media().listByAccount(user.id, { limit: 2 });
      expect(page.map((m) => m.id)).toEqual([third.id, second.id]);
      const next = await media().listByAccount(user.id, { limit: 2, before: second });
      expect(next.map((m) => m.id)).toEqual([first.id]);
      expect(await media().listByAccount(newId(), { limit: 2 })).toEqual([]);
    });

    it('sums the bytes of an account media (past 2^32), inside a unit of work too', async () => {
      const { user, row } = await seedMedia();
      await media().insert(makeMedia(user.id, user.id, { size: 1234 }));
      await seedMedia({ size: 99 });
      expect(await media().totalBytesByAccount(user.id)).toBe(row.size + 1234);
      expect(await media().totalBytesByAccount(newId())).toBe(0);
      const summed = await storage().uow.run(async (repos) => {
        const before = await repos.media.totalBytesByAccount(user.id);
        await repos.media.insert(makeMedia(user.id, user.id, { size: 1 }));
        return [before, await repos.media.totalBytesByAccount(user.id)];
      });
      expect(summed).toEqual([row.size + 1234, row.size + 1235]);
    });

    it('is in use while an unfinished post links it; linking clears the expiry', async () => {
      const { user, row } = await seedMedia();
      expect(await media().inUse(row.id)).toBe(false);
      const post = await seedPost(storage().repos, { userId: user.id });
      await media().link(post.id, [row.name, 'unknown.png']);
      await media().link(post.id, [row.name]);
      expect(await media().inUse(row.id)).toBe(true);
      expect((await media().findById(row.id))?.expiresAt).toBeNull();
      const done = nextTime();
      expect(
        await storage().repos.posts.transitionStatus(post.id, ['queued'], 'published', done),
      ).toBe(true);
      expect(await media().inUse(row.id)).toBe(false);
    });

    it('settles the expiry after the last post ends, and lists what has expired', async () => {
      const retention = 1_000;
      const { user, row } = await seedMedia({ createdAt: ancient(10), expiresAt: null });
      const post = await seedPost(storage().repos, {
        userId: user.id,
        post: { createdAt: ancient(20), updatedAt: ancient(20) },
      });
      await media().link(post.id, [row.name]);
      expect(await media().settleExpiry(retention)).toBeGreaterThanOrEqual(0);
      expect((await media().findById(row.id))?.expiresAt).toBeNull();
      expect(await media().listExpired(ancient(1000), 100)).not.toContainEqual(
        expect.objectContaining({ id: row.id }),
      );

      await storage().repos.posts.transitionStatus(post.id, ['queued'], 'failed', ancient(30));
      expect(await media().settleExpiry(retention)).toBeGreaterThanOrEqual(1);
      const settled = await media().findById(row.id);
      expect(settled?.expiresAt).toEqual(plus(ancient(30), retention));
      expect((await media().listExpired(ancient(30), 100)).map((m) => m.id)).not.toContain(row.id);
      expect((await media().listExpired(ancient(31), 100)).map((m) => m.id)).toContain(row.id);
    });

    it('a media no post used expires from its creation', async () => {
      const { row } = await seedMedia({ createdAt: ancient(40), expiresAt: null });
      await media().settleExpiry(5_000);
      expect((await media().findById(row.id))?.expiresAt).toEqual(plus(ancient(40), 5_000));
    });

    it('deletes a media and its links once', async () => {
      const { user, row } = await seedMedia();
      const post = await seedPost(storage().repos, { userId: user.id });
      await media().link(post.id, [row.name]);
      expect(await media().delete(row.id)).toBe(true);
      expect(await media().delete(row.id)).toBe(false);
      expect(await media().findById(row.id)).toBeNull();
      expect(await storage().repos.posts.findById(post.id)).not.toBeNull();
    });
  });
}
