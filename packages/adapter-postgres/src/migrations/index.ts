/**
 * Every migration, by name. Kysely runs them in name order; a name is never changed or reused
 * once released. To add one: create `NNNN_what.ts` next to this file exporting `fromStatements(up, down)`
 * and list it below (see the package README).
 */
import type { Migration } from 'kysely/migration';
import { migration0001 } from './0001_initial.ts';
import { migration0002 } from './0002_platform_names_unchecked.ts';
import { migration0003 } from './0003_connect_accounts.ts';
import { migration0004 } from './0004_lookup_change_notices.ts';
import { migration0005 } from './0005_oauth_state_browser.ts';
import { migration0006 } from './0006_webhook_secrets_sealed.ts';
import { migration0007 } from './0007_post_series_and_slots.ts';
import { migration0008 } from './0008_threads_and_first_comments.ts';
import { migration0009 } from './0009_media.ts';
import { migration0010 } from './0010_platform_apps_and_data.ts';
import { migration0011 } from './0011_metrics.ts';
import { migration0012 } from './0012_webhook_events_by_shape.ts';
import { migration0013 } from './0013_webhook_filters_and_auto_disable.ts';
import { migration0014 } from './0014_posts_retention.ts';
import { migration0015 } from './0015_approval.ts';
import { migration0016 } from './0016_unpublish.ts';
import { migration0017 } from './0017_comments.ts';
import { migration0018 } from './0018_due_at.ts';
import { migration0019 } from './0019_reply_lookups.ts';
import { migration0020 } from './0020_webhook_change_notices.ts';

export const migrations: Record<string, Migration> = {
  '0001_initial': migration0001,
  '0002_platform_names_unchecked': migration0002,
  '0003_connect_accounts': migration0003,
  '0004_lookup_change_notices': migration0004,
  '0005_oauth_state_browser': migration0005,
  '0006_webhook_secrets_sealed': migration0006,
  '0007_post_series_and_slots': migration0007,
  '0008_threads_and_first_comments': migration0008,
  '0009_media': migration0009,
  '0010_platform_apps_and_data': migration0010,
  '0011_metrics': migration0011,
  '0012_webhook_events_by_shape': migration0012,
  '0013_webhook_filters_and_auto_disable': migration0013,
  '0014_posts_retention': migration0014,
  '0015_approval': migration0015,
  '0016_unpublish': migration0016,
  '0017_comments': migration0017,
  '0018_due_at': migration0018,
  '0019_reply_lookups': migration0019,
  '0020_webhook_change_notices': migration0020,
};
