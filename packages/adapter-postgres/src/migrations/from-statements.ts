import type { Kysely, RawBuilder } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A migration written as two lists of SQL statements, run in order: `up` to apply it, `down`
 * to take it back. Every migration of this package is one, so each file holds only its SQL.
 */
export function fromStatements(
  up: readonly RawBuilder<unknown>[],
  down: readonly RawBuilder<unknown>[],
): Required<Migration> {
  const run = async (statements: readonly RawBuilder<unknown>[], db: Kysely<unknown>) => {
    for (const statement of statements) await statement.execute(db);
  };
  return { up: (db) => run(up, db), down: (db) => run(down, db) };
}
