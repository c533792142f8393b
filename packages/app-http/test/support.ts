import { PLATFORM_DESCRIPTORS } from '@social-publisher/adapter-platforms';
import {
  createTestDeps,
  ScriptedPlatformRegistry,
  type SeededUser,
  seedConnection,
  seedUser,
  seedWorkspace,
  type TestDeps,
} from '@social-publisher/domain/testing';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { type AppConfig, type AppOptions, buildApp } from '../src/app.ts';

export const TEST_CONFIG: AppConfig = {
  bodyLimitBytes: 1024 * 1024,
  httpTimeouts: {
    headersMs: 10_000,
    bodyMs: 30_000,
    importBodyMs: 300_000,
    mediaBodyMs: 3_600_000,
  },
  rateLimit: { max: 10_000, windowMs: 60_000 },
  attemptLimits: { authFailures: 10_000, oauthCallbacks: 10_000, tokenFailures: 10_000 },
  trustProxy: false,
  idempotencyTtlMs: 24 * 3_600_000,
  authJwtSecret: null,
  authJwksUrl: null,
  authJwtIssuer: null,
  authJwtAudience: null,
  queuePrefix: 'sp',
};

/** The fake clock's "now" is 2026-01-01; these are safely before and after it. */
export const PAST = '2025-06-01T00:00:00Z';
export const FUTURE = '2026-06-01T09:30:00Z';

export interface Harness {
  app: FastifyInstance;
  deps: TestDeps;
  health: { database: boolean; queue: boolean };
  alice: SeededUser;
  bob: SeededUser;
  /** Headers carrying a user's personal key. */
  as(user: SeededUser | string): Record<string, string>;
  call(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Scripted publishers with the real platforms' rules (media, content, platform_options). */
export const realPlatformRules = () =>
  new ScriptedPlatformRegistry(PLATFORM_DESCRIPTORS.map((descriptor) => descriptor.rules));

export async function createHarness(
  overrides: Partial<Omit<AppOptions, 'deps' | 'checks' | 'config'>> & {
    config?: Partial<AppConfig>;
    /** Default: every real platform's rules, with scripted publishers. */
    platforms?: ScriptedPlatformRegistry;
  } = {},
): Promise<Harness> {
  const { platforms, ...appOverrides } = overrides;
  const deps = createTestDeps({ platforms: platforms ?? realPlatformRules() });
  const health = { database: true, queue: true };
  const app = await buildApp({
    queueKind: 'inprocess',
    idempotencySweepMs: 0,
    ...appOverrides,
    deps,
    checks: { database: async () => health.database, queue: async () => health.queue },
    config: { ...TEST_CONFIG, ...appOverrides.config },
  });
  await app.ready();
  const alice = await seedUser(deps, 'alice@example.com');
  const bob = await seedUser(deps, 'bob@example.com');
  return {
    app,
    deps,
    health,
    alice,
    bob,
    as: (user) => ({ authorization: `Bearer ${typeof user === 'string' ? user : user.rawKey}` }),
    call: (options) => app.inject(options),
    close: () => app.close(),
  };
}

export { seedConnection, seedUser, seedWorkspace };

/** Asserts the error envelope and returns its error object. */
export function expectError(
  response: LightMyRequestResponse,
  status: number,
  code?: string,
): { code: string; message: string; details?: Array<{ field: string; message: string }> } {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as { error: { code: string; message: string; details?: [] } };
  expect(body).toEqual({
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
  expect(Object.keys(body.error).every((key) => ['code', 'message', 'details'].includes(key))).toBe(
    true,
  );
  if (code) expect(body.error.code).toBe(code);
  return body.error;
}

/** Asserts a 400 validation_failed naming `field` in its details. */
export function expectInvalid(response: LightMyRequestResponse, field: string | RegExp): void {
  const error = expectError(response, 400, 'validation_failed');
  const fields = (error.details ?? []).map((problem) => problem.field);
  if (typeof field === 'string') expect(fields).toContain(field);
  else
    expect(
      fields.some((f) => field.test(f)),
      fields.join(', '),
    ).toBe(true);
}
