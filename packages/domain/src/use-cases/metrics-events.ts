/**
 * `post.metrics_updated`: after a pass read numbers that differ from the ones stored before, one
 * event per post with its changed targets. Opt-in like every event: only webhooks subscribed to
 * it receive it.
 */
import type { CoreDeps } from '../deps.ts';
import { METRIC_NAMES, type MetricTrack, type MetricValues } from '../metrics-model.ts';
import type { TrackUpdate } from '../ports/index.ts';
import { reachesConnections } from '../rules/webhook-rules.ts';
import { enqueueDeliveries, pendingDeliveries } from './pending-deliveries.ts';

const EVENT = 'post.metrics_updated';

function changed(before: MetricValues | null, after: MetricValues): boolean {
  if (!before) return METRIC_NAMES.some((name) => after[name] !== null);
  return METRIC_NAMES.some((name) => before[name] !== after[name]);
}

/** The metrics as the API shows them (snake_case is the names themselves). */
const wireMetrics = (metrics: MetricValues) =>
  Object.fromEntries(METRIC_NAMES.map((name) => [name, metrics[name]]));

interface ChangedTarget {
  track: MetricTrack;
  metrics: MetricValues;
}

/** The changed targets, by post. */
function changesByPost(
  tracks: readonly MetricTrack[],
  updates: readonly TrackUpdate[],
): Map<string, ChangedTarget[]> {
  const byId = new Map(tracks.map((track) => [track.targetId, track]));
  const posts = new Map<string, ChangedTarget[]>();
  for (const update of updates) {
    const track = byId.get(update.targetId);
    const metrics = update.snapshot?.metrics;
    if (!track || !metrics || !changed(track.metrics, metrics)) continue;
    const list = posts.get(track.postId) ?? [];
    list.push({ track, metrics });
    posts.set(track.postId, list);
  }
  return posts;
}

export async function notifyMetricsUpdated(
  deps: CoreDeps,
  tracks: readonly MetricTrack[],
  updates: readonly TrackUpdate[],
): Promise<void> {
  const posts = changesByPost(tracks, updates);
  if (posts.size === 0) return;
  const now = deps.clock.now();
  const subscribers = new Map<
    string,
    Awaited<ReturnType<typeof deps.repos.webhooks.listActiveForEvent>>
  >();
  for (const [postId, targets] of posts) {
    const accountId = targets[0]?.track.accountId ?? '';
    let webhooks = subscribers.get(accountId);
    if (!webhooks) {
      webhooks = await deps.repos.webhooks.listActiveForEvent(accountId, EVENT);
      subscribers.set(accountId, webhooks);
    }
    // A webhook filtered by connection receives the post's numbers when one of the changed
    // targets goes through one of its connections.
    const connections = targets.map(({ track }) => track.socialAccountId);
    const receivers = webhooks.filter((webhook) => reachesConnections(webhook, connections));
    if (receivers.length === 0) continue;
    const data = {
      targets: targets.map(({ track, metrics }) => ({
        target_id: track.targetId,
        platform: track.platform,
        metrics: wireMetrics(metrics),
      })),
    };
    const created = pendingDeliveries(
      deps,
      receivers,
      { accountId, postId, event: EVENT, data },
      now,
    );
    await deps.repos.deliveries.insertMany(created);
    await enqueueDeliveries(
      deps,
      created.map((delivery) => delivery.id),
    );
  }
}
