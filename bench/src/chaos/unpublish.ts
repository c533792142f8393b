/**
 * Taking posts down while workers die: X threads are published (no fault), then every post is
 * asked to be unpublished while the fake X answers each delete slowly and the two workers are
 * SIGKILLed about once a second. Every asked target must end `removed` (none left `removing`,
 * none `remove_failed`), nothing of the posts may be left on the fake X, and each post's
 * `post.unpublished` must arrive.
 */
import type { Backend } from '../lib/infra.ts';
import { type Cluster, startCluster } from './cluster.ts';
import { setUp, tally, type World, waitForEnd } from './load.ts';
import type { Result, Size } from './scenarios.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Each DELETE /2/tweets/:id waits this long at the fake: kills land mid-delete. */
const DELETE_DELAY_MS = 300;
const END_TIMEOUT_MS = 50_000;
/** Kills go on this long after the asks (the deletes run meanwhile), then the rest settles. */
const KILL_WINDOW_MS = 15_000;

interface TargetJson {
  platform: string;
  status: string;
  platform_post_id: string | null;
  thread_post_ids: string[];
}
interface PostJson {
  id: string;
  post_targets: TargetJson[];
}

/** `count` X threads of three parts, created 8 at a time; the ids the API accepted. */
async function createThreads(cluster: Cluster, world: World, count: number): Promise<string[]> {
  const tag = `unpublish-${Date.now()}`;
  const accepted: string[] = [];
  for (let start = 0; start < count; start += 8) {
    const batch = Array.from({ length: Math.min(8, count - start) }, (_, i) => start + i);
    const answers = await Promise.all(
      batch.map((index) =>
        cluster.call<{ data: { id: string } }>('POST', '/posts', {
          content: `${tag} ${index}`,
          social_account_ids: [world.x],
          thread: [{ content: `${tag} ${index} 2/3` }, { content: `${tag} ${index} 3/3` }],
        }),
      ),
    );
    for (const answer of answers) if (answer.status === 201) accepted.push(answer.body.data.id);
  }
  return accepted;
}

/** Posts of `ids` as GET /posts shows them. */
async function postsOf(cluster: Cluster, ids: readonly string[]): Promise<PostJson[]> {
  const answer = await cluster.call<{ data: PostJson[] }>('GET', '/posts');
  const wanted = new Set(ids);
  return answer.status === 200 ? answer.body.data.filter((post) => wanted.has(post.id)) : [];
}

const statusesOf = (posts: PostJson[]) => posts.flatMap((p) => p.post_targets.map((t) => t.status));

/** Polls until no target of `ids` is `removing` (or the time is up); the last view. */
async function waitForRemovals(cluster: Cluster, ids: readonly string[]): Promise<PostJson[]> {
  const deadline = Date.now() + END_TIMEOUT_MS;
  for (;;) {
    const posts = await postsOf(cluster, ids);
    const done = posts.length === ids.length && !statusesOf(posts).includes('removing');
    if (done || Date.now() > deadline) return posts;
    await sleep(500);
  }
}

/** Checks of the run: every target removed, nothing left on X, one event per post. */
function removalChecks(cluster: Cluster, posts: PostJson[], ids: readonly string[]) {
  const statuses = statusesOf(posts);
  const count = (status: string) => statuses.filter((s) => s === status).length;
  const platformIds = new Set(
    posts.flatMap((p) => p.post_targets.flatMap((t) => [t.platform_post_id, ...t.thread_post_ids])),
  );
  const left = cluster.x.tweets.filter((tweet) => platformIds.has(tweet.id)).length;
  const events = ids.filter((id) => cluster.receiver.events.get(`post.unpublished ${id}`)?.size);
  const deleteRequests = cluster.x.requests.filter((r) => r.method === 'DELETE').length;
  const failures: string[] = [];
  if (count('removed') !== ids.length) {
    failures.push(`${ids.length - count('removed')} of ${ids.length} targets not removed`);
  }
  if (count('removing') > 0) failures.push(`${count('removing')} targets left removing`);
  if (left > 0) failures.push(`${left} posts still on X`);
  if (events.length !== ids.length) {
    failures.push(`${ids.length - events.length} post.unpublished events missing`);
  }
  const notes = [
    `  unpublished ${ids.length} threads (${platformIds.size} X posts, ${DELETE_DELAY_MS} ms a delete): removed ${count('removed')}, removing ${count('removing')}, remove_failed ${count('remove_failed')}; left on X ${left}; deletes done ${cluster.x.deletes.deleted.length} of ${deleteRequests} asked (a killed worker's are asked again); post.unpublished received ${events.length}`,
  ];
  return { failures, notes };
}

/** 2 workers SIGKILLed about once a second while X threads are being deleted. */
export async function unpublishStorm(backend: Backend, size: Size): Promise<Result> {
  if (!backend.databaseUrl || !backend.redisUrl || !backend.prefix) {
    throw new Error('the fault suite needs PostgreSQL and Redis');
  }
  const cluster = await startCluster({
    databaseUrl: backend.databaseUrl,
    redisUrl: backend.redisUrl,
    queuePrefix: backend.prefix,
    workers: 2,
    latencyMs: 50,
  });
  try {
    const world = await setUp(cluster);
    const hook = await cluster.call('POST', '/webhooks', {
      url: cluster.receiver.url,
      events: ['post.unpublished'],
    });
    if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status}`);
    const accepted = await createThreads(cluster, world, size.unpublishPosts);
    const published = await waitForEnd(cluster, accepted, 60_000);
    const counts = tally(cluster, accepted, published);
    const begun = Date.now();
    cluster.x.deletes.deleteDelayMs = DELETE_DELAY_MS;
    let stop = false;
    const killer = (async () => {
      await sleep(300);
      while (!stop && Date.now() - begun < KILL_WINDOW_MS) {
        await cluster.killAndRestartWorker();
        await sleep(700 + Math.random() * 600);
      }
    })();
    const statuses = new Map<number, number>();
    for (const id of accepted) {
      const answer = await cluster.call('POST', `/posts/${id}/unpublish`);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
    const posts = await waitForRemovals(cluster, accepted);
    const removedAfter = (Date.now() - begun) / 1000;
    stop = true;
    await killer;
    // The events: a delivery interrupted by a kill is retried after 5 s.
    const deadline = Date.now() + 20_000;
    let checked = removalChecks(cluster, posts, accepted);
    while (checked.failures.length > 0 && Date.now() < deadline) {
      await sleep(500);
      checked = removalChecks(cluster, await postsOf(cluster, accepted), accepted);
    }
    const errorLines = cluster.errorLines();
    const other = [...statuses.keys()].filter((status) => status !== 202);
    return {
      name: 'unpublish under a SIGKILL storm',
      tally: counts,
      statuses,
      kills: cluster.kills,
      missingWebhooks: 0,
      errorLines,
      seconds: (Date.now() - begun) / 1000,
      notes: [
        ...checked.notes,
        `  every target ended ${removedAfter.toFixed(1)} s after the first ask`,
      ],
      failures: [
        ...checked.failures,
        ...(counts.published === size.unpublishPosts ? [] : ['not every post was published']),
        ...(other.length > 0 ? [`unpublish answered ${other.join(', ')}`] : []),
        ...(errorLines.length > 0 ? [`${errorLines.length} error log lines`] : []),
      ],
    };
  } finally {
    await cluster.close();
  }
}
