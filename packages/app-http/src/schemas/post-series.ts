/** Repeating posts: `recurrence` of POST /posts/schedule and the series representation. */
import {
  MAX_RRULE_LENGTH,
  MAX_SERIES_COUNT,
  MAX_TIMEZONE_LENGTH,
  type PlatformCatalog,
  type SeriesView,
} from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';
import { AT_LEAST_ONE_TARGET, schedulePostBody } from './post-input.ts';

export const RecurrenceSchema = Type.Object(
  {
    rrule: Type.String({
      minLength: 1,
      maxLength: MAX_RRULE_LENGTH,
      description:
        'RFC 5545 RRULE without DTSTART, COUNT or UNTIL, e.g. FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=9;BYMINUTE=0; occurrences at least an hour apart, repeating within 5 years',
    }),
    timezone: Type.String({
      minLength: 1,
      maxLength: MAX_TIMEZONE_LENGTH,
      description: 'IANA timezone the rule is read in; wall-clock times stay put across DST',
    }),
    count: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: MAX_SERIES_COUNT,
          description: 'Occurrences in all, the first included',
        }),
      ),
    ),
    until: Type.Optional(Nullable(Timestamp('No occurrence after this instant (not with count)'))),
  },
  {
    additionalProperties: false,
    description:
      'Repeats the post: scheduled_at is the first occurrence, each occurrence its own post',
  },
);

/** POST /posts/schedule: the scheduled post, optionally repeating. */
export const scheduleBody = (catalog: PlatformCatalog) => {
  const { properties } = schedulePostBody(catalog);
  return Type.Object(
    { ...properties, recurrence: Type.Optional(RecurrenceSchema) },
    {
      additionalProperties: false,
      description: 'At least one target: social_account_ids or platforms',
      ...AT_LEAST_ONE_TARGET,
    },
  );
};

export const PostSeriesSchema = Type.Object(
  {
    id: Uuid(),
    account_id: Uuid('The account (personal or team) that owns the series'),
    created_by: Uuid(),
    rrule: Type.String(),
    timezone: Type.String(),
    count: Nullable(Type.Integer()),
    until: Nullable(Timestamp()),
    first_at: Timestamp('The first occurrence (scheduled_at of the first post)'),
    status: Type.Enum(['active', 'stopped', 'finished'], {
      description:
        'active: occurrences are created ahead; finished: the rule has none left; stopped: DELETE',
    }),
    content: Type.String(),
    social_account_ids: Type.Array(Uuid(), { description: 'The connections of every occurrence' }),
    occurrences: Type.Array(
      Type.Object({
        occurrence_at: Timestamp('The time the rule gives (the post may have been moved since)'),
        post_id: Uuid(),
      }),
      { description: 'Occurrences that have their post, oldest first' },
    ),
    next_occurrences: Type.Array(Timestamp(), {
      description: 'The next times the rule gives after now (at most 10; none once stopped)',
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { description: 'A repeating post' },
);

export function presentSeries(view: SeriesView): Static<typeof PostSeriesSchema> {
  const { series } = view;
  return {
    id: series.id,
    account_id: series.accountId,
    created_by: series.createdBy,
    rrule: series.rrule,
    timezone: series.timezone,
    count: series.count,
    until: series.until ? series.until.toISOString() : null,
    first_at: series.firstAt.toISOString(),
    status: series.status,
    content: series.template.content,
    social_account_ids: series.template.targets.map((target) => target.socialAccountId),
    occurrences: view.occurrences.map((occurrence) => ({
      occurrence_at: occurrence.occurrenceAt.toISOString(),
      post_id: occurrence.postId,
    })),
    next_occurrences: view.nextOccurrences.map((at) => at.toISOString()),
    created_at: series.createdAt.toISOString(),
    updated_at: series.updatedAt.toISOString(),
  };
}
