/**
 * The size rules of the house, for hand-written production code (every package's src/, but
 * the generated client schema and the test support of testkit and the domain's testing/): no file over 400 lines, no function over 80 lines of its own.
 * A function's own lines are its lines less those of the functions nested in it (a route
 * plugin's handlers, a factory's methods), so a factory of small closures is not one long
 * function. The numbers are read with the TypeScript compiler, not by eye.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
/** Written by a generator from the OpenAPI document, not by hand. */
const GENERATED = new Set(['packages/client/src/schema.ts']);
/** Test support, not production: the fake platforms and the contract suites. */
const TEST_SUPPORT = ['packages/testkit/', 'packages/domain/src/testing/'];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const productionFiles = (): string[] =>
  readdirSync(join(ROOT, 'packages'))
    .flatMap((name) => sourceFiles(join(ROOT, 'packages', name, 'src')))
    .map((path) => path.slice(ROOT.length + 1))
    .filter((path) => !GENERATED.has(path))
    .filter((path) => !TEST_SUPPORT.some((prefix) => path.startsWith(prefix)));

/** `name (lines)` of each function in `path` longer than the limit by its own lines. */
export function longFunctions(path: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const span = (node: ts.Node) => lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
  const found: string[] = [];
  const nameOf = (node: ts.Node): string => {
    const named = node as { name?: ts.Node };
    if (named.name) return named.name.getText(source);
    const parent = node.parent;
    if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) {
      return parent.name.getText(source);
    }
    if (parent && ts.isCallExpression(parent)) {
      return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
    }
    return '(anonymous)';
  };
  /** Lines of the function-like nodes directly nested in `node`'s body, whole. */
  const nestedLines = (node: ts.Node): number => {
    let lines = 0;
    const visit = (child: ts.Node) => {
      if (ts.isFunctionLike(child) && 'body' in child && child.body) {
        lines += span(child);
        return;
      }
      if (ts.isClassLike(child)) {
        lines += span(child);
        return;
      }
      ts.forEachChild(child, visit);
    };
    ts.forEachChild(node, visit);
    return lines;
  };
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const own = span(node) - nestedLines(node.body);
      if (own > limit) found.push(`${path}: ${nameOf(node)} (${own} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the house keeps its rooms small', () => {
  const files = productionFiles();

  it(`no hand-written production file is over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((path) => ({ path, lines: readFileSync(join(ROOT, path), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ path, lines }) => `${path} (${lines} lines)`);
    expect(long).toEqual([]);
  });

  it(`no function is over ${MAX_FUNCTION_LINES} lines of its own`, () => {
    const long = files.flatMap((path) =>
      longFunctions(path, readFileSync(join(ROOT, path), 'utf8'), MAX_FUNCTION_LINES),
    );
    expect(long).toEqual([]);
  });

  it('counts a function without the functions nested in it', () => {
    const body = Array.from({ length: 90 }, (_, index) => `  const a${index} = ${index};`);
    const nested = `function outer() {\n  const inner = () => {\n${body.join('\n')}\n  };\n  return inner;\n}\n`;
    expect(longFunctions('x.ts', nested, MAX_FUNCTION_LINES)).toEqual(['x.ts: inner (92 lines)']);
    expect(longFunctions('x.ts', nested, 100)).toEqual([]);
  });
});
