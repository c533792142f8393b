/**
 * `pnpm migrate`: applies pending migrations to DATABASE_URL, or to the embedded PGlite
 * database under DATA_DIR (default ./.data), both read by `@social-publisher/config` like at
 * every start. Prints what ran; a second run prints that the schema is up to date. Exits 1 with
 * one clear line when the configuration is bad or a migration fails.
 */
import { migrateToLatest } from '@social-publisher/adapter-postgres';
import { errorMessage } from '@social-publisher/domain';
import { loadRuntimeConfig } from './runtime.ts';
import { openConfiguredDatabase, storageLabel } from './storage.ts';

async function main(): Promise<void> {
  // Migrations never read tokens: no ENCRYPTION_KEY needed.
  const config = loadRuntimeConfig(process.env, { requireEncryptionKey: false });
  const target = storageLabel(config);
  const handle = await openConfiguredDatabase(config);
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
  console.error(`migrate: ${errorMessage(error)}`);
  process.exitCode = 1;
});
