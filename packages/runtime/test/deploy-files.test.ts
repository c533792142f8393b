/**
 * The deployment files stay honest (no container engine runs here, so they are checked as
 * text): every variable `.env.example` and the service entries of `compose.yaml` name is one
 * the configuration reads, `.env.example` lists every variable it reads, and the Dockerfile
 * installs every workspace package's manifest.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadRuntimeConfig } from '../src/index.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Every variable the configuration reads, recorded by running the real loader. */
function variablesTheConfigReads(): Set<string> {
  const seen = new Set<string>();
  const record = (sample: Record<string, string>) => {
    const env = new Proxy(sample, {
      get(target, key) {
        if (typeof key === 'string') seen.add(key);
        return typeof key === 'string' ? target[key] : undefined;
      },
    });
    try {
      loadRuntimeConfig(env);
    } catch {
      // Only the names matter here.
    }
  };
  record({});
  record({ DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://redis:6379' });
  return seen;
}

/** `.env.example`: service variables, and those under its compose-only heading. */
function envExample(): { service: Set<string>; composeOnly: Set<string> } {
  const service = new Set<string>();
  const composeOnly = new Set<string>();
  let section = service;
  for (const line of read('.env.example').split('\n')) {
    if (/^# ---- compose\.yaml only/.test(line)) section = composeOnly;
    const name = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
    if (name) section.add(name);
  }
  return { service, composeOnly };
}

describe('deployment files', () => {
  const reads = variablesTheConfigReads();
  const example = envExample();
  const compose = parse(read('compose.yaml')) as {
    services: Record<string, { environment?: Record<string, string>; env_file?: string }>;
  };

  it('the loader reads the variables the README and docs talk about', () => {
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'ENCRYPTION_KEY',
      'METRICS_TOKEN',
      'X_CLIENT_ID',
    ]) {
      expect(reads).toContain(name);
    }
  });

  it('.env.example lists every variable the configuration reads, and nothing else', () => {
    expect([...reads].filter((name) => !example.service.has(name))).toEqual([]);
    expect([...example.service].filter((name) => !reads.has(name))).toEqual([]);
    // Its compose-only variables are not the service's.
    expect([...example.composeOnly].filter((name) => reads.has(name))).toEqual([]);
  });

  it("compose.yaml's API, worker and migrate services set only variables the service reads", () => {
    for (const name of ['api', 'worker', 'migrate']) {
      const service = compose.services[name];
      expect(service, name).toBeDefined();
      expect(service?.env_file).toBe('.env');
      const unknown = Object.keys(service?.environment ?? {}).filter((key) => !reads.has(key));
      expect(unknown, name).toEqual([]);
    }
    // ${NAME} interpolations are compose variables, documented in .env.example's compose part.
    const interpolated = [...read('compose.yaml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map(
      (match) => match[1] ?? '',
    );
    expect(interpolated.filter((name) => !example.composeOnly.has(name))).toEqual([]);
  });

  it('the Dockerfile copies every workspace package manifest before installing', () => {
    const dockerfile = read('Dockerfile');
    const packages = readdirSync(join(ROOT, 'packages')).map(
      (name) => `packages/${name}/package.json`,
    );
    for (const manifest of [...packages, 'bench/package.json', 'pnpm-lock.yaml']) {
      expect(dockerfile, manifest).toContain(manifest);
    }
    expect(dockerfile).toMatch(/^FROM node:24-slim/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
  });
});
