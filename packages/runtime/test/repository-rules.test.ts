// Rules of the repository that a reader relies on and no compiler checks: each package's
// README says what its source may import ("May import: ..."), and the docs stand alone (no
// pointer to a document outside the repository; every relative link resolves).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
// Node built-ins are allowed everywhere but in the domain, whose own test/dependency-rule.test.ts
// holds it to a stricter rule (no I/O built-ins).
const PACKAGES = readdirSync(join(ROOT, 'packages')).filter(
  (name) => name !== 'domain' && existsSync(join(ROOT, 'packages', name, 'README.md')),
);

/** The backticked package names of the README's "May import:" sentence. */
function allowedImports(readme: string): Set<string> | null {
  const sentence = /May import[^:]*:([\s\S]*?)\.(?:\s|$)/.exec(readme)?.[1];
  if (sentence === undefined) return null;
  const names = [...sentence.matchAll(/`([^`\s]+)`/g)].map((match) => match[1] ?? '');
  return new Set(names);
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The package each bare import names (`@scope/name/sub` -> `@scope/name`). */
function importedPackages(source: string): string[] {
  const specifiers = [
    // A statement (up to its semicolon) from its first word to its module's quoted name.
    ...source.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*'([^']+)'/gm),
    ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    // createRequire(import.meta.url)('name'): a CommonJS package loaded from ESM.
    ...source.matchAll(/\bcreateRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] ?? '');
  return specifiers
    .filter((specifier) => !specifier.startsWith('.'))
    .map((specifier) => {
      const parts = specifier.split('/');
      return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
    });
}

const isBuiltin = (name: string): boolean =>
  name.startsWith('node:') || builtinModules.includes(name);

describe('each package imports only what its README allows', () => {
  it.each(PACKAGES)('%s', (name) => {
    const dir = join(ROOT, 'packages', name);
    const allowed = allowedImports(readFileSync(join(dir, 'README.md'), 'utf8'));
    expect(allowed, `${name}/README.md has no "May import:" line`).not.toBeNull();
    if (!allowed) return;
    const self = `@social-publisher/${name}`;
    const offences = sourceFiles(join(dir, 'src')).flatMap((file) =>
      importedPackages(readFileSync(file, 'utf8'))
        .filter((imported) => imported !== self && !allowed.has(imported) && !isBuiltin(imported))
        .map((imported) => `${file.slice(ROOT.length + 1)} imports ${imported}`),
    );
    expect(offences).toEqual([]);
  });

  it('reads the rule the way a reader does (a package outside the line is an offence)', () => {
    const rule = allowedImports('May import: `@social-publisher/domain`, `pg`. Never an app.');
    expect(rule).toEqual(new Set(['@social-publisher/domain', 'pg']));
    expect(
      importedPackages("import { x } from 'kysely/helpers';\nimport type { Y } from '@a/b/c';"),
    ).toEqual(['kysely', '@a/b']);
  });
});

const tracked = (): string[] =>
  execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((path) => path !== '' && existsSync(join(ROOT, path)));

describe('the docs stand alone', () => {
  it('no file points at a briefing document the repository does not hold', () => {
    const outside = /\b(SPEC|DESIGN|PLATFORMS|CONNECT|WORKFLOWS)\.md\b/;
    const offences = tracked()
      .filter((path) => /\.(ts|md|sh|json|ya?ml)$/.test(path) || !path.includes('.'))
      .filter((path) => !path.startsWith('packages/runtime/test/repository-rules'))
      .filter((path) => outside.test(readFileSync(join(ROOT, path), 'utf8')))
      .filter((path) => {
        const text = readFileSync(join(ROOT, path), 'utf8');
        // A document the repository holds (docs/api.md, a README) is fine.
        return [...text.matchAll(new RegExp(outside, 'g'))].some(
          (match) => !existsSync(join(ROOT, match[0])),
        );
      });
    expect(offences).toEqual([]);
  });

  it('every relative link of a Markdown file resolves', () => {
    const offences = tracked()
      .filter((path) => path.endsWith('.md'))
      .flatMap((path) => {
        const text = readFileSync(join(ROOT, path), 'utf8');
        return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
          .map((match) => match[1] ?? '')
          .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
          .filter((target) => !existsSync(resolve(ROOT, dirname(path), target.split('#')[0] ?? '')))
          .map((target) => `${path} -> ${target}`);
      });
    expect(offences).toEqual([]);
  });
});

// A dependency nobody imports misleads a reader about what a package leans on (and keeps a
// package installed for nothing); one imported but undeclared works only by hoisting.
describe("each package's dependencies are what its source imports", () => {
  const ALL = readdirSync(join(ROOT, 'packages')).filter((name) =>
    existsSync(join(ROOT, 'packages', name, 'package.json')),
  );
  it.each(ALL)('%s', (name) => {
    const dir = join(ROOT, 'packages', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const imported = new Set(
      sourceFiles(join(dir, 'src')).flatMap((file) =>
        importedPackages(readFileSync(file, 'utf8')).filter(
          (pkg) => pkg !== manifest.name && !isBuiltin(pkg),
        ),
      ),
    );
    const declared = Object.keys(manifest.dependencies ?? {});
    // Test support (the domain's contract suites, testkit's optional testcontainers) may
    // import a development dependency.
    const available = [...declared, ...Object.keys(manifest.devDependencies ?? {})];
    expect(
      declared.filter((pkg) => !imported.has(pkg)),
      'declared, never imported',
    ).toEqual([]);
    expect(
      [...imported].filter((pkg) => !available.includes(pkg)),
      'imported, not declared',
    ).toEqual([]);
  });
});
