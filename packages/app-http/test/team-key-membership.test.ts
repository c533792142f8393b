/**
 * A team key acts for its creator: once the creator leaves the team (or is demoted below the
 * roles that hold team keys) the key is refused at once, by every process, whatever it keeps in
 * memory. Production: two API runtimes (as two `start:api` processes wire them) on one
 * PostgreSQL, each with its lookup cache on and trusted; the removal goes through one, the
 * refusal is asked of the other with no wait. Embedded: the one PGlite runtime and its cache.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { deleteKeys, REDIS_URL, unavailable, uniquePrefix, waitFor } from './e2e/system.ts';
import { call as callApi, type RuntimeApi, startApi } from './runtime-api.ts';
import { seedUser } from './support.ts';

interface ApiProcess extends RuntimeApi {
  /** Whether this process's lookup cache said it trusts change notices. */
  cacheOn(): boolean;
}

/** An API process whose log lines are kept, to see when its lookup cache trusts notices. */
async function startLoggedApi(
  env: Record<string, string>,
  role: 'api' | 'embedded',
  close: Array<() => Promise<void>>,
): Promise<ApiProcess> {
  const messages: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() !== '') messages.push((JSON.parse(line) as { msg: string }).msg);
      }
      done();
    },
  });
  const api = await startApi(env, role, close, pino({ level: 'info' }, sink));
  return { ...api, cacheOn: () => messages.includes('lookup cache on: change notices arrive') };
}

const call = (
  api: ApiProcess,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  key: string,
  payload?: object,
) => callApi<{ data?: unknown; error?: { code: string } }>(api, method, url, key, payload);

/** The scenario, with `one` and `other` two processes (or the same one, embedded). */
function defineScenarios(processes: () => { one: ApiProcess; other: ApiProcess }) {
  async function teamWithAdmin() {
    const { one, other } = processes();
    const alice = await seedUser(one.deps);
    const bob = await seedUser(one.deps);
    const team = await call(one, 'POST', '/workspaces', alice.rawKey, { name: 'acme' });
    const teamId = (team.body.data as { id: string }).id;
    const added = await call(one, 'POST', `/workspaces/${teamId}/members`, alice.rawKey, {
      user_id: bob.user.id,
      role: 'admin',
    });
    expect(added.status).toBe(201);
    const created = await call(other, 'POST', '/api-keys', bob.rawKey, {
      name: 'bob ci',
      workspace_id: teamId,
    });
    expect(created.status).toBe(201);
    const bobsKey = created.body.data as { id: string; key: string };
    return { one, other, alice, bob, teamId, bobsKey };
  }

  /** What a departed member would try with the key: read, write, mint another key. */
  async function everyUse(api: ApiProcess, key: string): Promise<number[]> {
    return [
      (await call(api, 'GET', '/social-accounts', key)).status,
      (await call(api, 'POST', '/social-accounts', key, { platform: 'tiktok', sandbox: true }))
        .status,
      (await call(api, 'POST', '/api-keys', key, { name: 'another' })).status,
      (await call(api, 'GET', '/posts', key)).status,
    ];
  }

  it("a removed member's team key is refused at once, by every process (401)", async () => {
    const { one, other, alice, bob, teamId, bobsKey } = await teamWithAdmin();
    // Both processes have looked the key up (and keep it in memory).
    expect(await everyUse(other, bobsKey.key)).toEqual([200, 201, 201, 200]);
    expect((await call(one, 'GET', '/social-accounts', bobsKey.key)).status).toBe(200);
    const removed = await call(
      one,
      'DELETE',
      `/workspaces/${teamId}/members/${bob.user.id}`,
      alice.rawKey,
    );
    expect(removed.status).toBe(204);
    // No wait: not a notice's delay, not a cache's lifetime.
    expect(await everyUse(other, bobsKey.key)).toEqual([401, 401, 401, 401]);
    expect(await everyUse(one, bobsKey.key)).toEqual([401, 401, 401, 401]);
    // The owner still sees every key of the team, Bob's too, and revokes them.
    const listed = await call(one, 'GET', `/api-keys?workspace_id=${teamId}`, alice.rawKey);
    const ids = (listed.body.data as Array<{ id: string }>).map((key) => key.id);
    expect(ids).toContain(bobsKey.id);
    for (const id of ids) {
      expect((await call(other, 'DELETE', `/api-keys/${id}`, alice.rawKey)).status).toBe(204);
    }
    expect((await call(one, 'GET', `/api-keys?workspace_id=${teamId}`, alice.rawKey)).body).toEqual(
      { data: [] },
    );
  });

  it('a creator demoted to member: the team key is refused (403); members create none', async () => {
    const { one, other, alice, bob, teamId, bobsKey } = await teamWithAdmin();
    expect((await call(other, 'GET', '/social-accounts', bobsKey.key)).status).toBe(200);
    const demoted = await call(one, 'POST', `/workspaces/${teamId}/members`, alice.rawKey, {
      user_id: bob.user.id,
      role: 'member',
    });
    expect(demoted.status).toBe(201);
    expect(await everyUse(other, bobsKey.key)).toEqual([403, 403, 403, 403]);
    // As a member Bob still works in the team with his own credential, but mints no team key.
    expect(
      (await call(other, 'GET', `/social-accounts?workspace_id=${teamId}`, bob.rawKey)).status,
    ).toBe(200);
    const minted = await call(other, 'POST', '/api-keys', bob.rawKey, {
      name: 'member key',
      workspace_id: teamId,
    });
    expect(minted.status).toBe(403);
    // He may still revoke the key he made.
    expect((await call(one, 'DELETE', `/api-keys/${bobsKey.id}`, bob.rawKey)).status).toBe(204);
  });
}

const database = await createTestDatabase();
const skipReason = await unavailable('production', database);
if (skipReason) await database.drop();

describe.skipIf(skipReason)(
  `team keys follow their creator's membership, production mode (2 API processes, one PostgreSQL)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const close: Array<() => Promise<void>> = [];
    const prefix = uniquePrefix('team-keys');
    let one: ApiProcess;
    let other: ApiProcess;

    beforeAll(async () => {
      const env = {
        DATABASE_URL: database.url as string,
        REDIS_URL,
        QUEUE_PREFIX: prefix,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      };
      one = await startLoggedApi(env, 'api', close);
      other = await startLoggedApi(env, 'api', close);
      // Both caches on, so the key really is answered from memory by the time it is refused.
      await waitFor('both lookup caches on', () => one.cacheOn() && other.cacheOn());
    }, 60_000);

    afterAll(async () => {
      for (const step of close.reverse()) await step();
      await deleteKeys(prefix);
      await database.drop();
    }, 60_000);

    defineScenarios(() => ({ one, other }));
  },
);

describe("team keys follow their creator's membership, embedded mode (PGlite + in-process queue)", () => {
  const close: Array<() => Promise<void>> = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'sp-team-keys-'));
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startLoggedApi({ DATA_DIR: dataDir }, 'embedded', close);
  }, 60_000);

  afterAll(async () => {
    for (const step of close.reverse()) await step();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  defineScenarios(() => ({ one: api, other: api }));
});
