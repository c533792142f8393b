/**
 * /admin/queues (bull-board) in production mode: refused without ADMIN_TOKEN, its API answers
 * with it, and it renders in headless Chromium (HTTP Basic credentials, as a browser sends them)
 * showing the publish and webhook-delivery queues; a screenshot is written for people to look at.
 * CI installs Debian's chromium (.ci/run); elsewhere set CHROMIUM_PATH, or SKIP_BROWSER_TESTS=1
 * to skip the browser part knowingly.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testkit/src/index.ts';
import { type System, startSystem, unavailable } from './e2e/system.ts';

const ADMIN_TOKEN = 'admin-token-for-the-dashboard-test';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const database = await createTestDatabase();
const skipReason = await unavailable('production', database);

describe.skipIf(skipReason)(
  `GET /admin/queues (production mode)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let system: System | undefined;

    beforeAll(async () => {
      if (!database.url) throw new Error('no database');
      system = await startSystem({
        mode: 'production',
        databaseUrl: database.url,
        env: { ADMIN_TOKEN },
      });
    }, 60_000);

    afterAll(async () => {
      try {
        await system?.close();
      } finally {
        await database.drop();
      }
    }, 60_000);

    it('refuses without the credential and with a wrong one, asking for Basic auth', async () => {
      if (!system) throw new Error('no system');
      const bare = await fetch(`${system.api.baseUrl}/admin/queues`);
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(await bare.json()).toMatchObject({ error: { code: 'unauthorized' } });
      const wrong = await fetch(`${system.api.baseUrl}/admin/queues/api/queues`, {
        headers: { authorization: 'Bearer not-the-admin-token-at-all' },
      });
      expect(wrong.status).toBe(401);
      // An API key is not an admin credential.
      const apiKey = await system.api.call('GET', '/admin/queues/api/queues');
      expect(apiKey.status).toBe(401);
    });

    it('its API lists the three queues, read-only', async () => {
      if (!system) throw new Error('no system');
      const answer = await fetch(`${system.api.baseUrl}/admin/queues/api/queues`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as {
        queues: Array<{ name: string; readOnlyMode: boolean }>;
      };
      expect(body.queues.map((queue) => queue.name).sort()).toEqual([
        'publish',
        'unpublish',
        'webhook-delivery',
      ]);
      expect(body.queues.every((queue) => queue.readOnlyMode)).toBe(true);
    });

    it('renders in headless Chromium behind Basic auth, showing the publish and delivery queues', async (context) => {
      if (!system) throw new Error('no system');
      if (process.env.SKIP_BROWSER_TESTS === '1') return context.skip('SKIP_BROWSER_TESTS=1');
      if (!existsSync(CHROMIUM)) {
        throw new Error(
          `no Chromium at ${CHROMIUM}: apt-get install -y chromium (CI does), set CHROMIUM_PATH, or SKIP_BROWSER_TESTS=1`,
        );
      }
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        // Without credentials a headless browser gives up on the Basic challenge (no prompt).
        const refused = await browser.newPage();
        const denied = await refused.goto(`${system.api.baseUrl}/admin/queues`).then(
          (response) => `HTTP ${response?.status()}`,
          (error: Error) => error.message,
        );
        expect(denied).toMatch(/HTTP 401|ERR_INVALID_AUTH_CREDENTIALS/);

        const browserContext = await browser.newContext({
          httpCredentials: { username: 'admin', password: ADMIN_TOKEN },
        });
        const page = await browserContext.newPage();
        const answer = await page.goto(`${system.api.baseUrl}/admin/queues`);
        expect(answer?.status()).toBe(200);
        await page.getByText('webhook-delivery').first().waitFor({ timeout: 20_000 });
        await page.getByText('publish', { exact: true }).first().waitFor({ timeout: 20_000 });
        await page.getByText('Loading').first().waitFor({ state: 'hidden', timeout: 10_000 });
        const dir = join(tmpdir(), 'social-publisher-screenshots');
        mkdirSync(dir, { recursive: true });
        const file = join(dir, 'admin-queues.png');
        await page.screenshot({ path: file, fullPage: true });
        expect(statSync(file).size).toBeGreaterThan(5_000);
        console.log(`dashboard screenshot: ${file}`);
      } finally {
        await browser.close();
      }
    }, 60_000);
  },
);
