/**
 * The deployment files stay honest. No container engine runs here, so they are checked as text
 * against the code:
 * - the variables the configuration reads are found by running the real loader
 *   (loadRuntimeConfig, with every platform's declared settings) over a recording environment,
 *   not by reading its source;
 * - `.env.example` lists each of them once (as `NAME=value` or `# NAME=value`), and nothing else;
 * - the api, worker and migrate services of `compose.yaml` set only variables the service reads,
 *   and every `${NAME}` compose interpolates (from the same `.env`) is one of them too;
 * - the commands the image and compose run are the root package.json scripts' ones, and the
 *   Dockerfile copies every workspace manifest before `pnpm install --frozen-lockfile`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PLATFORM_DESCRIPTORS } from '@social-publisher/adapter-platforms';
import { ConfigError } from '@social-publisher/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadRuntimeConfig } from '../src/index.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The three services that run this project's image (the others are PostgreSQL and Redis). */
const APP_SERVICES = ['migrate', 'api', 'worker'] as const;

/**
 * Every variable the configuration reads: the real loader runs over environments that record
 * each name asked for. Several samples, so that a name read only when another is set (a
 * production setting, a platform's older alias) is seen too.
 */
function variablesTheConfigReads(): Set<string> {
  const seen = new Set<string>();
  const samples: Array<[Record<string, string>, { requireEncryptionKey?: boolean }]> = [
    [{}, {}],
    [
      {
        DATABASE_URL: 'postgres://db.example/social_publisher',
        REDIS_URL: 'redis://redis.example:6379',
        ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
        DATABASE_POOL_SIZE: '10',
        METRICS_PORT: '9464',
        QUEUE_STALLED_INTERVAL_MS: '1000',
        QUEUE_LOCK_DURATION_MS: '1000',
      },
      {},
    ],
    [{ DATABASE_URL: 'postgres://db.example/social_publisher' }, { requireEncryptionKey: false }],
  ];
  for (const [values, options] of samples) {
    const env = new Proxy(values, {
      get(target, key) {
        if (typeof key !== 'string') return undefined;
        seen.add(key);
        return target[key];
      },
      has(target, key) {
        if (typeof key === 'string') seen.add(key);
        return key in target;
      },
      ownKeys() {
        // A loader that lists the environment (e.g. every name with a prefix) reads names no
        // recording can discover: this test would have to find them another way.
        throw new Error('the configuration enumerates the environment');
      },
    });
    try {
      loadRuntimeConfig(env, options);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  return seen;
}

interface Entry {
  name: string;
  line: number;
}

/** `.env.example`: every `NAME=value` and `# NAME=value` line, with its line number. */
function envExampleEntries(): Entry[] {
  const entries: Entry[] = [];
  read('.env.example')
    .split('\n')
    .forEach((text, index) => {
      const name = /^(?:#\s*)?([A-Za-z_][A-Za-z0-9_]*)=/.exec(text)?.[1];
      if (name) entries.push({ name, line: index + 1 });
    });
  return entries;
}

type ComposeService = {
  environment?: Record<string, unknown> | string[];
  env_file?: unknown;
  command?: unknown;
};
type ComposeFile = { services?: Record<string, ComposeService> };

/** compose.yaml, anchors and `<<` merge keys resolved as Compose resolves them. */
const composeFile = (): ComposeFile => parse(read('compose.yaml'), { merge: true }) as ComposeFile;

/** The names a service's `environment` sets, in the map or the list (`NAME=value`) form. */
function environmentNames(service: ComposeService): string[] {
  const { environment } = service;
  if (environment === undefined) return [];
  if (Array.isArray(environment)) return environment.map((entry) => entry.split('=')[0] ?? '');
  return Object.keys(environment);
}

/** Every string in a parsed YAML value (keys included): where `${NAME}` can appear. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)]);
  }
  return [];
}

/** The variables `${NAME}`, `${NAME:-default}`, `${NAME:?error}` and `$NAME` refer to. */
function interpolated(text: string): string[] {
  const unescaped = text.replaceAll('$$', '');
  return [...unescaped.matchAll(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*))/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe('deployment files', () => {
  const reads = variablesTheConfigReads();

  it('the recording sees the variables the code and the docs name', () => {
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'ENCRYPTION_KEY', 'PORT', 'METRICS_PORT']) {
      expect(reads, name).toContain(name);
    }
    // Every platform's declared settings, older aliases included: the platform list reached
    // the loader.
    for (const descriptor of PLATFORM_DESCRIPTORS) {
      for (const setting of Object.values(descriptor.settings)) {
        for (const name of [setting.env, ...(setting.aliases ?? [])]) {
          expect(reads, `${descriptor.name}: ${name}`).toContain(name);
        }
      }
    }
  });

  it('.env.example lists every variable the configuration reads, once, and nothing else', () => {
    const entries = envExampleEntries();
    const listed = new Set(entries.map((entry) => entry.name));
    const missing = sorted([...reads].filter((name) => !listed.has(name)));
    const unknown = entries
      .filter((entry) => !reads.has(entry.name))
      .map((entry) => `${entry.name} (line ${entry.line})`);
    const twice = sorted(
      entries
        .filter((entry, index) => entries.findIndex((other) => other.name === entry.name) < index)
        .map((entry) => entry.name),
    );
    expect({ missing, unknown, twice }).toEqual({ missing: [], unknown: [], twice: [] });
  });

  it("compose.yaml's api, worker and migrate services set only variables the service reads", () => {
    const services = composeFile().services ?? {};
    const unknown: string[] = [];
    for (const name of APP_SERVICES) {
      const service = services[name];
      expect(service, `service ${name}`).toBeDefined();
      if (!service) continue;
      const envFiles = [service.env_file]
        .flat()
        .map((file) =>
          typeof file === 'object' && file !== null ? (file as { path?: unknown }).path : file,
        );
      expect(envFiles, `${name} reads .env`).toContain('.env');
      for (const variable of environmentNames(service)) {
        if (!reads.has(variable)) unknown.push(`${name}: ${variable}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every variable compose.yaml interpolates is one the service reads', () => {
    // Compose interpolates from the same .env the containers get, whose names are the service's
    // only (.env.example): a ${NAME} of another kind would have no documented place to be set.
    const names = strings(composeFile()).flatMap(interpolated);
    expect(names.length).toBeGreaterThan(0);
    expect(sorted(names.filter((name) => !reads.has(name)))).toEqual([]);
  });

  it('the image and compose run the root package.json scripts, which exist', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
      .scripts;
    const command = (script: string) => (scripts[script] ?? '').split(' ');
    const services = composeFile().services ?? {};
    expect(services.api?.command).toEqual(command('start:api'));
    expect(services.worker?.command).toEqual(command('start:worker'));
    expect(services.migrate?.command).toEqual(command('migrate'));
    const dockerfileCmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1] ?? '[]';
    expect(JSON.parse(dockerfileCmd)).toEqual(command('start:api'));
    for (const script of ['start:api', 'start:worker', 'migrate']) {
      const file = command(script)[1] ?? '';
      expect(existsSync(join(ROOT, file)), `${script}: ${file}`).toBe(true);
    }
  });

  it('the Dockerfile copies every workspace manifest, and its ENV names are read', () => {
    const dockerfile = read('Dockerfile');
    const manifests = readdirSync(join(ROOT, 'packages'))
      .filter((name) => existsSync(join(ROOT, 'packages', name, 'package.json')))
      .map((name) => `packages/${name}/package.json`);
    for (const manifest of [...manifests, 'bench/package.json']) {
      expect(dockerfile, manifest).toMatch(new RegExp(`^COPY ${manifest} `, 'm'));
    }
    expect(dockerfile).toMatch(/^COPY pnpm-lock\.yaml pnpm-workspace\.yaml /m);
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile/);
    expect(dockerfile).toMatch(/pnpm install --prod --frozen-lockfile/);
    expect(dockerfile).toMatch(/^FROM node:24-slim AS|^ARG NODE_IMAGE=node:24-slim$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/health/m);
    // The runtime stage's ENV (continuations included): the service's variables, and NODE_ENV,
    // which libraries read and the service does not.
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const envNames = [...runtimeStage.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)].flatMap((block) =>
      [...(block[1] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)].map((match) => match[1] ?? ''),
    );
    expect(envNames).toContain('NODE_ENV');
    expect(envNames.filter((name) => name !== 'NODE_ENV' && !reads.has(name))).toEqual([]);
  });
});
