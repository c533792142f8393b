/**
 * Re-encrypts every secret at rest with the current key (`pnpm cli secrets reencrypt`): the
 * connections' tokens, the webhooks' signing secrets (legacy plaintext ones are sealed),
 * the PKCE verifiers of connect flows in progress, and the client secrets of apps registered on
 * platform instances. Afterwards the previous keys can go.
 *
 * Rows are read a page at a time in id order. Each row is rewritten with a conditional UPDATE
 * (the stored values must still be the ones that were read), so a token renewed meanwhile by a
 * worker, already under the current key, is left as it is. A row that does not decrypt is
 * reported and left untouched: nothing is lost, and the operator can still supply the key.
 */
import {
  isPlaintextWebhookSecret,
  SecretUnreadableError,
  secretBinding,
  type TokenCipher,
} from '@social-publisher/domain';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface UnreadableSecret {
  table: string;
  id: string;
  reason: string;
}

export interface ReencryptReport {
  /** Rows rewritten with the current key. */
  reencrypted: number;
  /** Rows already under the current key (or changed by someone else while this ran). */
  unchanged: number;
  unreadable: UnreadableSecret[];
}

const PAGE = 500;

/** One stored value and the binding it decrypts with. */
interface Sealed {
  value: string;
  boundTo: string;
  /** Stored in the clear (a webhook secret from before sealing). */
  plaintext?: boolean;
}

/** The value under the current key, or null when it already is. Throws when unreadable. */
function resealed(cipher: TokenCipher, sealed: Sealed): string | null {
  if (!sealed.plaintext && cipher.isCurrent(sealed.value)) return null;
  const secret = sealed.plaintext ? sealed.value : cipher.decrypt(sealed.value, sealed.boundTo);
  return cipher.encrypt(secret, sealed.boundTo);
}

interface TableRotation<Row extends { id: string }> {
  table: string;
  page(after: string | null): Promise<Row[]>;
  /** The row's stored values, in a fixed order (null: an empty column). */
  sealed(row: Row): Array<Sealed | null>;
  /** Writes the new values where the row still holds the old ones; true when it did. */
  write(row: Row, values: Array<string | null>): Promise<boolean>;
}

async function rotateTable<Row extends { id: string }>(
  cipher: TokenCipher,
  rotation: TableRotation<Row>,
  report: ReencryptReport,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const rows = await rotation.page(after);
    for (const row of rows) {
      let values: Array<string | null>;
      try {
        values = rotation.sealed(row).map((sealed) => (sealed ? resealed(cipher, sealed) : null));
      } catch (error) {
        if (!(error instanceof SecretUnreadableError)) throw error;
        report.unreadable.push({ table: rotation.table, id: row.id, reason: error.message });
        continue;
      }
      const changed = values.some((value) => value !== null);
      if (changed && (await rotation.write(row, values))) report.reencrypted += 1;
      else report.unchanged += 1;
    }
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    after = last.id;
  }
}

export async function reencryptSecrets(
  db: Kysely<Database>,
  cipher: TokenCipher,
): Promise<ReencryptReport> {
  const report: ReencryptReport = { reencrypted: 0, unchanged: 0, unreadable: [] };

  await rotateTable(
    cipher,
    {
      table: 'social_accounts',
      page: (after) =>
        db
          .selectFrom('social_accounts')
          .select(['id', 'access_token_ciphertext', 'refresh_token_ciphertext'])
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      sealed: (row) => [
        { value: row.access_token_ciphertext, boundTo: secretBinding.accessToken(row.id) },
        row.refresh_token_ciphertext === null
          ? null
          : { value: row.refresh_token_ciphertext, boundTo: secretBinding.refreshToken(row.id) },
      ],
      async write(row, [access, refresh]) {
        const result = await db
          .updateTable('social_accounts')
          .set({
            access_token_ciphertext: access ?? row.access_token_ciphertext,
            refresh_token_ciphertext: refresh ?? row.refresh_token_ciphertext,
          })
          .where('id', '=', row.id)
          .where('access_token_ciphertext', '=', row.access_token_ciphertext)
          .where((eb) =>
            row.refresh_token_ciphertext === null
              ? eb('refresh_token_ciphertext', 'is', null)
              : eb('refresh_token_ciphertext', '=', row.refresh_token_ciphertext),
          )
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },
    report,
  );

  await rotateTable(
    cipher,
    {
      table: 'webhooks',
      page: (after) =>
        db
          .selectFrom('webhooks')
          .select(['id', 'secret'])
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      sealed: (row) => [
        {
          value: row.secret,
          boundTo: secretBinding.webhookSecret(row.id),
          plaintext: isPlaintextWebhookSecret(row.secret),
        },
      ],
      async write(row, [secret]) {
        const result = await db
          .updateTable('webhooks')
          .set({ secret: secret ?? row.secret })
          .where('id', '=', row.id)
          .where('secret', '=', row.secret)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },
    report,
  );

  await rotateTable(
    cipher,
    {
      table: 'oauth_states',
      page: (after) =>
        db
          .selectFrom('oauth_states')
          .select(['id', 'code_verifier_ciphertext'])
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      sealed: (row) => [
        { value: row.code_verifier_ciphertext, boundTo: secretBinding.codeVerifier(row.id) },
      ],
      async write(row, [verifier]) {
        const result = await db
          .updateTable('oauth_states')
          .set({ code_verifier_ciphertext: verifier ?? row.code_verifier_ciphertext })
          .where('id', '=', row.id)
          .where('code_verifier_ciphertext', '=', row.code_verifier_ciphertext)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },
    report,
  );

  await rotateTable(
    cipher,
    {
      table: 'platform_apps',
      page: (after) =>
        db
          .selectFrom('platform_apps')
          .select(['id', 'client_secret_ciphertext'])
          .$if(after !== null, (q) => q.where('id', '>', after as string))
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      sealed: (row) => [
        { value: row.client_secret_ciphertext, boundTo: secretBinding.appSecret(row.id) },
      ],
      async write(row, [secret]) {
        const result = await db
          .updateTable('platform_apps')
          .set({ client_secret_ciphertext: secret ?? row.client_secret_ciphertext })
          .where('id', '=', row.id)
          .where('client_secret_ciphertext', '=', row.client_secret_ciphertext)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },
    report,
  );

  return report;
}
