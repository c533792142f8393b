/**
 * `pnpm cli secrets reencrypt`: every stored secret rewritten with the current ENCRYPTION_KEY,
 * read with it or with a key of ENCRYPTION_KEY_PREVIOUS. Opens the configured database on its
 * own (migrated first, so a legacy schema is brought up to date), without queue or platforms.
 */
import { type ReencryptReport, reencryptSecrets } from '@social-publisher/adapter-postgres';
import { type Config, resolveEncryptionKeys } from '@social-publisher/config';
import { createAesGcmCipher, type Logger } from '@social-publisher/domain';
import { openStorage } from './storage.ts';

export async function reencryptStoredSecrets(
  config: Config,
  logger: Logger,
): Promise<ReencryptReport> {
  const keys = resolveEncryptionKeys(config);
  const cipher = createAesGcmCipher(keys.current, { previous: keys.previous });
  const database = await openStorage(config, logger, 2);
  try {
    return await reencryptSecrets(database.db, cipher);
  } finally {
    await database.close();
  }
}
