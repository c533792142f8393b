/** The representation of a post's numbers (snake_case) and how the domain's values become it. */
import {
  type DailyMetrics,
  METRIC_NAMES,
  METRICS_STATES,
  type MetricName,
  type MetricSnapshot,
  type MetricTrack,
  type MetricValues,
  noMetrics,
  type PostMetrics,
} from '@social-publisher/domain';
import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from './common.ts';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

const metricValue = () => Nullable(Type.Integer({ minimum: 0 }));

/** Every name, always present: null when the platform does not report it (never a made-up 0). */
const metricValues = (description: string) =>
  Type.Object(
    Object.fromEntries(METRIC_NAMES.map((name) => [name, metricValue()])) as Record<
      MetricName,
      ReturnType<typeof metricValue>
    >,
    { description },
  );

export const MetricValuesSchema = metricValues(
  `${METRIC_NAMES.join(', ')}: each a non-negative integer, or null when the platform does not report it`,
);

export const MetricTargetSchema = Type.Object(
  {
    target_id: Uuid('The post target (post_targets[].id of GET /posts/{id})'),
    platform: Type.String({ description: 'The platform name, as in POST /posts platforms' }),
    social_account_id: Uuid('The connection it was published to'),
    platform_post_id: Type.String({ description: 'The id on the platform' }),
    sandbox: Type.Boolean({ description: 'Sandbox numbers: made up, never read from a platform' }),
    state: Type.Enum([...METRICS_STATES], {
      description:
        'pending: not read yet; fresh: the last read worked; stale: the last read failed (older numbers shown, error says why); unavailable: the platform offers no numbers for it; gone: the post no longer exists on the platform (no more reads)',
    }),
    taken_at: Nullable(Timestamp('When the numbers were read; null: never')),
    next_refresh_at: Nullable(Timestamp('When the next read is due; null: none planned')),
    metrics: MetricValuesSchema,
    error: Nullable(Type.String({ description: 'Why the last read failed, or why there is none' })),
  },
  { description: "One published target's latest numbers" },
);

export const PostMetricsSchema = Type.Object({
  post_id: Uuid(),
  totals: metricValues('Each metric summed over the targets; null when no target reports it'),
  targets: Type.Array(MetricTargetSchema, { description: 'One per published target' }),
});

export const SnapshotSchema = Type.Object(
  {
    target_id: Uuid(),
    taken_at: Timestamp(),
    metrics: MetricValuesSchema,
    raw: Type.Record(Type.String(), Type.Unknown(), {
      description: "The platform's own names and values, as read",
    }),
    sandbox: Type.Boolean(),
  },
  { description: 'One read of one target' },
);

export const DailyMetricsSchema = Type.Object(
  {
    date: Type.String({ description: 'The day of publication (UTC), YYYY-MM-DD' }),
    posts: Type.Integer({ minimum: 0, description: 'Posts with a target published that day' }),
    metrics: metricValues(
      "The latest numbers of that day's targets, summed; null when none reports it",
    ),
  },
  { description: 'One day with published posts' },
);

type MetricsJson = Static<typeof MetricValuesSchema>;

/** The nine names in their order, whatever the source object holds. */
const presentValues = (metrics: MetricValues | null): MetricsJson => {
  const values = metrics ?? noMetrics();
  return Object.fromEntries(METRIC_NAMES.map((name) => [name, values[name]])) as MetricsJson;
};

function presentTrack(track: MetricTrack): Static<typeof MetricTargetSchema> {
  return {
    target_id: track.targetId,
    platform: track.platform,
    social_account_id: track.socialAccountId,
    platform_post_id: track.platformPostId,
    sandbox: track.sandbox,
    state: track.state,
    taken_at: iso(track.takenAt),
    next_refresh_at: iso(track.dueAt),
    metrics: presentValues(track.metrics),
    error: track.error,
  };
}

export const presentPostMetrics = (value: PostMetrics): Static<typeof PostMetricsSchema> => ({
  post_id: value.postId,
  totals: presentValues(value.totals),
  targets: value.targets.map(presentTrack),
});

export const presentSnapshot = (snapshot: MetricSnapshot): Static<typeof SnapshotSchema> => ({
  target_id: snapshot.targetId,
  taken_at: snapshot.takenAt.toISOString(),
  metrics: presentValues(snapshot.metrics),
  raw: snapshot.raw,
  sandbox: snapshot.sandbox,
});

export const presentDay = (day: DailyMetrics): Static<typeof DailyMetricsSchema> => ({
  date: day.date,
  posts: day.posts,
  metrics: presentValues(day.metrics),
});
