// The dependency rule: the domain is pure. Its source may import only itself, relative
// modules and harmless Node built-ins such as node:crypto; never an adapter, a framework,
// a driver, or a Node built-in that does I/O.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const DOMAIN_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

const FORBIDDEN_PACKAGES = [
  'fastify',
  'bullmq',
  'kysely',
  'pg',
  'ioredis',
  'undici',
  '@electric-sql/pglite',
  'pino',
  'ipaddr.js',
];
// I/O built-ins. node:crypto (and other pure ones such as node:util) stay allowed.
const FORBIDDEN_BUILTINS = [
  'fs',
  'net',
  'http',
  'dns',
  'https',
  'http2',
  'tls',
  'dgram',
  'child_process',
];
const OWN_PACKAGE = '@social-publisher/domain';

function isForbidden(specifier: string): string | undefined {
  const bare = specifier.replace(/^node:/, '');
  const root = bare.split('/')[0] ?? bare;
  if (FORBIDDEN_BUILTINS.includes(root)) return `I/O built-in "${specifier}"`;
  for (const name of FORBIDDEN_PACKAGES) {
    if (specifier === name || specifier.startsWith(`${name}/`)) return `package "${specifier}"`;
  }
  if (
    specifier.startsWith('@social-publisher/') &&
    specifier !== OWN_PACKAGE &&
    !specifier.startsWith(`${OWN_PACKAGE}/`)
  ) {
    return `workspace package "${specifier}"`;
  }
  return undefined;
}

function listTsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(m|c)?tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

// Every module specifier in a file: import/export ... from, side-effect imports, import(),
// import x = require(), plus any string literal naming an I/O built-in (require,
// process.getBuiltinModule, ...).
function specifiersOf(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  const found = info.importedFiles.map((file) => file.fileName);
  const builtinLiteral =
    /['"`]((?:node:)?(?:fs|net|http|dns|https|http2|tls|dgram|child_process)(?:\/[\w/]*)?)['"`]/g;
  for (const match of source.matchAll(builtinLiteral)) {
    const value = match[1] ?? '';
    if (value.startsWith('node:')) found.push(value);
  }
  return found;
}

function scan(dir: string): { files: string[]; violations: string[] } {
  const files = listTsFiles(dir);
  const violations: string[] = [];
  for (const file of files) {
    for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
      const reason = isForbidden(specifier);
      if (reason) violations.push(`${relative(dir, file)}: imports ${reason}`);
    }
  }
  return { files, violations };
}

describe('domain dependency rule', () => {
  it('packages/domain/src imports no adapter, framework, driver or I/O built-in', () => {
    const { files, violations } = scan(DOMAIN_SRC);
    expect(files.length, `no .ts file found under ${DOMAIN_SRC}`).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });

  describe('the checker itself', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'domain-rule-'));
    afterAll(() => rmSync(fixture, { recursive: true, force: true }));

    it('accepts pure imports and rejects every forbidden kind', () => {
      writeFileSync(
        join(fixture, 'ok.ts'),
        [
          "import { createHash } from 'node:crypto';",
          "import type { Post } from './model.ts';",
          "export * from './errors.ts';",
          "import { fakes } from '@social-publisher/domain/testing';",
          '// a comment about pg and fastify is fine',
          "const text = 'fs and net are just words here';",
        ].join('\n'),
      );
      expect(scan(fixture).violations).toEqual([]);

      const bad = [
        "import Fastify from 'fastify';",
        "import { Queue } from 'bullmq';",
        "import type { Kysely } from 'kysely';",
        "import pg from 'pg';",
        "import { Redis } from 'ioredis';",
        "import { request } from 'undici';",
        "import { PGlite } from '@electric-sql/pglite';",
        "import pino from 'pino';",
        "import ipaddr from 'ipaddr.js';",
        "export { x } from '@social-publisher/adapter-postgres';",
        "import {\n  readFile,\n} from 'node:fs/promises';",
        "import net from 'node:net';",
        "const http = await import('node:http');",
        "const dns = process.getBuiltinModule('node:dns');",
        "import fs from 'fs';",
      ];
      bad.forEach((line, index) => {
        writeFileSync(join(fixture, `bad-${index}.ts`), `${line}\n`);
      });
      const { files, violations } = scan(fixture);
      expect(files).toHaveLength(bad.length + 1);
      for (let index = 0; index < bad.length; index++) {
        expect(
          violations.some((v) => v.startsWith(`bad-${index}.ts:`)),
          `not caught: ${bad[index]}`,
        ).toBe(true);
      }
    });
  });
});
