/**
 * Drift guard: the Kysely table types in src/schema.ts against the schema the migrations build.
 * Every table and column of the migrated database is declared in `Database`, and every
 * declared one exists, with the same nullability (`T | null` against NOT NULL). The types are
 * read from the source with the TypeScript compiler, so a column added by a migration and
 * forgotten in schema.ts (or the reverse) fails here, not in a query at run time.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, openPgliteBackend } from './backends.ts';

const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'schema.ts');

/** Migration bookkeeping tables: Kysely's migrator owns them, the repositories never query them. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

interface DeclaredColumn {
  nullable: boolean;
}

/** The columns an interface declares, with those of the interfaces it extends (in schema.ts). */
function columnsOf(
  table: ts.InterfaceDeclaration,
  interfaces: ReadonlyMap<string, ts.InterfaceDeclaration>,
  source: ts.SourceFile,
): Map<string, DeclaredColumn> {
  const columns = new Map<string, DeclaredColumn>();
  for (const clause of table.heritageClauses ?? []) {
    for (const parent of clause.types) {
      const declared = interfaces.get(parent.expression.getText(source));
      if (!declared) throw new Error(`schema.ts: ${parent.getText(source)} is not an interface`);
      for (const [name, column] of columnsOf(declared, interfaces, source)) {
        columns.set(name, column);
      }
    }
  }
  for (const column of table.members) {
    if (!ts.isPropertySignature(column) || !column.type) continue;
    // `T | null`, also inside ColumnType<T | null, ...> or Generated<T | null>.
    const nullable = /(^|[<|,]\s*)null(\s*[|>,]|$)/.test(column.type.getText(source));
    columns.set(column.name.getText(source), { nullable });
  }
  return columns;
}

/** table -> column -> how schema.ts declares it, read from `interface Database` and its tables. */
function declaredTables(): Map<string, Map<string, DeclaredColumn>> {
  const source = ts.createSourceFile(
    SCHEMA_FILE,
    readFileSync(SCHEMA_FILE, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
  });
  const database = interfaces.get('Database');
  if (!database) throw new Error('schema.ts has no interface Database');
  const tables = new Map<string, Map<string, DeclaredColumn>>();
  for (const member of database.members) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    const tableName = member.name.getText(source);
    const typeName = member.type.getText(source);
    const table = interfaces.get(typeName);
    if (!table) throw new Error(`schema.ts: ${tableName} names ${typeName}, not an interface`);
    tables.set(tableName, columnsOf(table, interfaces, source));
  }
  return tables;
}

describe('src/schema.ts against the migrated schema', () => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  }, 60_000);
  afterAll(async () => {
    await backend?.close();
  });

  it('declares every table and column the migrations create, no more, with their nullability', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string; is_nullable: string }>`
      SELECT table_name, column_name, is_nullable FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`.execute(
      backend.handle.db,
    );
    const migrated = new Map<string, Map<string, DeclaredColumn>>();
    for (const row of rows) {
      if (BOOKKEEPING.has(row.table_name)) continue;
      const columns = migrated.get(row.table_name) ?? new Map<string, DeclaredColumn>();
      columns.set(row.column_name, { nullable: row.is_nullable === 'YES' });
      migrated.set(row.table_name, columns);
    }
    const declared = declaredTables();
    expect([...declared.keys()].sort()).toEqual([...migrated.keys()].sort());
    for (const [table, columns] of migrated) {
      const declaredColumns = declared.get(table) ?? new Map();
      expect([...declaredColumns.keys()].sort(), table).toEqual([...columns.keys()].sort());
      for (const [column, { nullable }] of columns) {
        expect(declaredColumns.get(column)?.nullable, `${table}.${column} nullable`).toBe(nullable);
      }
    }
  });
});
