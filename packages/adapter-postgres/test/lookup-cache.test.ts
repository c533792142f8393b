// The embedded mode's lookup cache, over the in-memory repositories: lookups answered from
// memory, every write (and a unit of work's end) forgetting, and a read that raced a write
// never storing the old row.
import type { Repositories } from '@social-publisher/domain';
import {
  makeApiKey,
  makeSocialAccount,
  makeWebhook,
  seedUser,
} from '@social-publisher/domain/contracts/storage-fixtures';
import { createMemoryRepositories, MemoryStore } from '@social-publisher/domain/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createLookupCache, type LookupCache } from '../src/lookup-cache.ts';

describe('lookup cache (embedded mode)', () => {
  let inner: Repositories;
  let cache: LookupCache;
  let repos: Repositories;
  let userId: string;

  /** The next key lookup reads the store at once but answers only when released. */
  function slowLookupOnce() {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const original = inner.apiKeys.findByHash.bind(inner.apiKeys);
    const lookups = vi.spyOn(inner.apiKeys, 'findByHash');
    lookups.mockImplementationOnce(async (hash) => {
      const row = await original(hash);
      await gate;
      return row;
    });
    return { release, lookups };
  }

  beforeEach(async () => {
    inner = createMemoryRepositories(new MemoryStore());
    cache = createLookupCache({});
    repos = cache.cached(inner);
    userId = (await seedUser(inner)).id;
  });

  it('answers a known key from memory, with a copy', async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    const lookups = vi.spyOn(inner.apiKeys, 'findByHash');
    const first = await repos.apiKeys.findByHash(key.keyHash);
    const second = await repos.apiKeys.findByHash(key.keyHash);
    expect(second).toEqual(key);
    expect(second).not.toBe(first);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('forgets a revoked key at once, and asks again for an unknown one every time', async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    expect(await repos.apiKeys.findByHash(key.keyHash)).toEqual(key);
    expect(await repos.apiKeys.delete(key.id)).toBe(true);
    expect(await repos.apiKeys.findByHash(key.keyHash)).toBeNull();
    const lookups = vi.spyOn(inner.apiKeys, 'findByHash');
    await repos.apiKeys.findByHash(key.keyHash);
    await repos.apiKeys.findByHash(key.keyHash);
    expect(lookups).toHaveBeenCalledTimes(2);
  });

  it('sees the last-used time a touch wrote', async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    await repos.apiKeys.findByHash(key.keyHash);
    const at = new Date('2026-11-23T12:00:00Z');
    await repos.apiKeys.touchLastUsed(key.id, at);
    expect((await repos.apiKeys.findByHash(key.keyHash))?.lastUsedAt).toEqual(at);
  });

  it('a touch keeps the other cached rows (every key in use writes it once a minute)', async () => {
    const key = makeApiKey(userId, userId);
    const other = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    await repos.apiKeys.insert(other);
    await repos.apiKeys.findByHash(key.keyHash);
    await repos.apiKeys.findByHash(other.keyHash);
    await repos.apiKeys.touchLastUsed(key.id, new Date('2026-11-23T12:00:00Z'));
    const lookups = vi.spyOn(inner.apiKeys, 'findByHash');
    expect(await repos.apiKeys.findByHash(other.keyHash)).toEqual(other);
    expect(lookups).not.toHaveBeenCalled();
  });

  it('does not keep a row read while a write ran', async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    const { release } = slowLookupOnce(); // read before the revoke, answered after it
    const racing = repos.apiKeys.findByHash(key.keyHash);
    await repos.apiKeys.delete(key.id);
    release();
    expect(await racing).toEqual(key); // the read itself came first
    expect(await repos.apiKeys.findByHash(key.keyHash)).toBeNull(); // but was not kept
  });

  it('answers connections in the asked order, from memory and the store together', async () => {
    const a = makeSocialAccount(userId);
    const b = makeSocialAccount(userId);
    await repos.socialAccounts.insert(a);
    await repos.socialAccounts.insert(b);
    expect(await repos.socialAccounts.findByIds([a.id])).toEqual([a]);
    const lookups = vi.spyOn(inner.socialAccounts, 'findByIds');
    expect(await repos.socialAccounts.findByIds([b.id, 'unknown', a.id, b.id])).toEqual([b, a]);
    expect(lookups).toHaveBeenCalledWith([b.id, 'unknown']);
    expect(await repos.socialAccounts.findByIds([a.id, b.id])).toEqual([a, b]);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('forgets a connection whose tokens were renewed or that was marked expired', async () => {
    const a = makeSocialAccount(userId);
    await repos.socialAccounts.insert(a);
    await repos.socialAccounts.findByIds([a.id]);
    const at = new Date('2026-11-23T12:00:00Z');
    await repos.socialAccounts.markExpired(a.id, at);
    expect((await repos.socialAccounts.findByIds([a.id]))[0]?.status).toBe('expired');
  });

  it("a transaction's writes empty the cache, and its reads never fill it", async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    await repos.apiKeys.findByHash(key.keyHash);
    const transaction = cache.invalidating(inner);
    await transaction.apiKeys.delete(key.id);
    expect(await repos.apiKeys.findByHash(key.keyHash)).toBeNull();

    const other = makeApiKey(userId, userId);
    await inner.apiKeys.insert(other);
    await transaction.apiKeys.findByHash(other.keyHash);
    const lookups = vi.spyOn(inner.apiKeys, 'findByHash');
    await repos.apiKeys.findByHash(other.keyHash);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('while not trusted, asks the store every time and keeps nothing', async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    cache.trust(false);
    const lookups = vi.spyOn(inner.apiKeys, 'findByHash');
    await repos.apiKeys.findByHash(key.keyHash);
    await repos.apiKeys.findByHash(key.keyHash);
    expect(lookups).toHaveBeenCalledTimes(2);
    cache.trust(true);
    await repos.apiKeys.findByHash(key.keyHash);
    await repos.apiKeys.findByHash(key.keyHash);
    expect(lookups).toHaveBeenCalledTimes(3);
  });

  it('does not keep a row read while trust was withdrawn', async () => {
    const key = makeApiKey(userId, userId);
    await repos.apiKeys.insert(key);
    const { release, lookups } = slowLookupOnce();
    const racing = repos.apiKeys.findByHash(key.keyHash);
    cache.trust(false); // the listener stopped hearing: a notice may have been missed
    cache.trust(true);
    release();
    await racing;
    lookups.mockClear();
    await repos.apiKeys.findByHash(key.keyHash);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it("a caller changing its copy (a date, the scopes) changes nobody else's", async () => {
    const a = { ...makeSocialAccount(userId), scopes: ['tweet.write'] };
    await repos.socialAccounts.insert(a);
    const [first] = await repos.socialAccounts.findByIds([a.id]);
    first?.scopes.push('changed');
    first?.updatedAt.setTime(0);
    const [second] = await repos.socialAccounts.findByIds([a.id]);
    expect(second).toEqual(a);
    expect(second?.updatedAt).toBeInstanceOf(Date);
  });

  it("answers an event's receivers from memory; a webhook's change forgets them, a failure streak does not", async () => {
    const hook = makeWebhook(userId, userId, { events: ['post.created'] });
    await repos.webhooks.insert(hook);
    const lookups = vi.spyOn(inner.webhooks, 'listActiveForEvent');
    const receivers = () => repos.webhooks.listActiveForEvent(userId, 'post.created', ['c1']);
    expect(await receivers()).toEqual([hook]);
    expect(await receivers()).toEqual([hook]);
    expect(lookups).toHaveBeenCalledTimes(1);
    // Another event, or other connections, is another question.
    expect(await repos.webhooks.listActiveForEvent(userId, 'post.failed', ['c1'])).toEqual([]);
    expect(lookups).toHaveBeenCalledTimes(2);

    await repos.webhooks.noteAttempt(hook.id, false, new Date());
    expect(await receivers()).toHaveLength(1);
    expect(lookups).toHaveBeenCalledTimes(2);

    expect(await repos.webhooks.disable(hook.id, 'gone')).toBe(true);
    expect(await receivers()).toEqual([]);
    expect(lookups).toHaveBeenCalledTimes(3);
  });
});
