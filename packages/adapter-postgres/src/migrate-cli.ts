/**
 * `pnpm migrate`: applies pending migrations to DATABASE_URL, or to the embedded PGlite
 * database under DATA_DIR (default ./.data). Prints what ran; a second run prints that the
 * schema is up to date. Exits 1 with one clear line when a migration fails.
 */
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL?.trim() || undefined;
  const dataDir = process.env.DATA_DIR?.trim() || './.data';
  const handle = await openDatabase(databaseUrl ? { databaseUrl, dataDir } : { dataDir });
  const target = handle.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${dataDir}`;
  try {
    const { applied, known } = await migrateToLatest(handle.db);
    if (applied.length === 0) {
      console.log(`${target}: schema is up to date (${known.length} migrations, nothing to run)`);
    } else {
      for (const name of applied) console.log(`${target}: applied ${name}`);
      console.log(`${target}: ${applied.length} migration(s) applied`);
    }
  } finally {
    await handle.close();
  }
}

main().catch((error: unknown) => {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
