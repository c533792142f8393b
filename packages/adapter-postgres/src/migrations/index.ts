/**
 * Every migration, by name. Kysely runs them in name order; a name is never changed or reused
 * once released. To add one: create `NNNN_what.ts` next to this file exporting `{ up, down }`
 * and list it below (see the package README).
 */
import type { Migration } from 'kysely/migration';
import { migration0001 } from './0001_initial.ts';

export const migrations: Record<string, Migration> = {
  '0001_initial': migration0001,
};
