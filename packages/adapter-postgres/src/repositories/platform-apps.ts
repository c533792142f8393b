import type { PlatformApp, PlatformAppRepository } from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

const platformAppColumns = [
  'id',
  'platform',
  'instance',
  'client_id as clientId',
  'client_secret_ciphertext as clientSecretCiphertext',
  'created_at as createdAt',
] as const;

/** Apps registered per platform instance; the first one kept for an instance stays. */
export function createPlatformAppRepository(db: Kysely<Database>): PlatformAppRepository {
  async function find(platform: string, instance: string): Promise<PlatformApp | null> {
    return (
      (await db
        .selectFrom('platform_apps')
        .select(platformAppColumns)
        .where('platform', '=', platform)
        .where('instance', '=', instance)
        .executeTakeFirst()) ?? null
    );
  }

  return {
    find,

    async keep(app: PlatformApp): Promise<PlatformApp> {
      const inserted = await db
        .insertInto('platform_apps')
        .values({
          id: app.id,
          platform: app.platform,
          instance: app.instance,
          client_id: app.clientId,
          client_secret_ciphertext: app.clientSecretCiphertext,
          created_at: app.createdAt,
        })
        .onConflict((conflict) => conflict.columns(['platform', 'instance']).doNothing())
        .returning(platformAppColumns)
        .executeTakeFirst();
      if (inserted) return inserted;
      // Another connect stored its app first (the conflict): that one is kept. Rows are never
      // deleted, so it is there to read.
      const kept = await find(app.platform, app.instance);
      if (!kept) throw new Error(`platform app for ${app.platform} ${app.instance} vanished`);
      return kept;
    },
  };
}
