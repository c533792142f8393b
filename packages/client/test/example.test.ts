/**
 * examples/publish.ts is run as a user would run it (a child `node` process), both ways it can
 * find an API, so the example cannot rot while the API or the client changes.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startEmbeddedServer } from '../scripts/embedded-server.ts';

const EXAMPLE = fileURLToPath(new URL('../examples/publish.ts', import.meta.url));

async function runExample(env: Record<string, string>): Promise<string> {
  // Only what is passed here names the API, whatever the shell running the tests has set.
  const { SOCIAL_PUBLISHER_URL: _url, SOCIAL_PUBLISHER_API_KEY: _key, ...inherited } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, [EXAMPLE], {
    env: { ...inherited, ...env },
    timeout: 60_000,
  });
  return stdout;
}

function expectPublished(stdout: string): void {
  expect(stdout).toMatch(/^post [0-9a-f-]{36}: published$/m);
  expect(stdout).toMatch(/^ {2}tiktok: published platform_post_id=sandbox-[0-9a-f-]{36} /m);
}

describe('examples/publish.ts', () => {
  it('starts its own embedded server and publishes through a sandbox account', async () => {
    const stdout = await runExample({});
    expect(stdout).toMatch(/^API: http:\/\/127\.0\.0\.1:\d+ \(embedded/m);
    expectPublished(stdout);
  }, 90_000);

  it('publishes on the API named by SOCIAL_PUBLISHER_URL and SOCIAL_PUBLISHER_API_KEY', async () => {
    const server = await startEmbeddedServer();
    try {
      const stdout = await runExample({
        SOCIAL_PUBLISHER_URL: server.baseUrl,
        SOCIAL_PUBLISHER_API_KEY: server.apiKey,
      });
      expect(stdout.split('\n')[0]).toBe(`API: ${server.baseUrl}`);
      expectPublished(stdout);
    } finally {
      await server.close();
    }
  }, 90_000);
});
