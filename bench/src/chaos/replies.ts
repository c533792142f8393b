/**
 * Replies while processes die: X posts are published and replies by others read (no fault),
 * then many replies are asked for, each with its own Idempotency-Key, while the fake X answers
 * each reply slowly and the API and the workers are SIGKILLed about once a second each.
 * Each client asks again with its key until a definite answer (201, the 409 of an unknown
 * outcome, another 4xx); every fourth gives up at its first lost answer, leaving its reply to
 * the workers' sweep. Checks: no reply text reached X twice, none left `sending`, each answer
 * the state stored, and an abandoned key asked again afterwards hears what the sweep decided.
 */
import pg from 'pg';
import type { Backend } from '../lib/infra.ts';
import { type Answer, type Cluster, startCluster } from './cluster.ts';
import { setUp, tally, type World, waitForEnd } from './load.ts';
import type { Result, Size } from './scenarios.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Each reply waits this long at the fake X: kills land between the call and its answer. */
const REPLY_DELAY_MS = 400;
/** Kills go on this long after the first reply is asked (or until every client has an answer). */
const KILL_WINDOW_MS = 20_000;
/** Replies asked at the same time. */
const CLIENTS = 8;
/** A client that has no definite answer by then counts as undecided (a failure). */
const CLIENT_DEADLINE_MS = 45_000;
/** Replies by others under each post, each answered by several of ours. */
const COMMENTS_PER_POST = 3;
/**
 * A reply's request may be in flight 6 s (its platform calls get 3 s): the sweep, every second
 * on each worker, and the retries look an abandoned reply up within seconds, not minutes.
 */
const ENV = {
  REPLY_IN_FLIGHT_MS: '6000',
  TOKEN_REFRESH_INTERVAL_MS: '1000',
  METRICS_READ_INTERVAL_MS: '500',
};

type Ending = 'sent' | 'outcome_unknown' | 'refused' | 'abandoned' | 'undecided';

interface Ask {
  key: string;
  text: string;
  commentId: string;
  /** Gives up at its first lost answer. */
  abandons: boolean;
  ending: Ending;
  /** Its reply was `sending` when its client gave up: only the sweep can settle it. */
  leftSending: boolean;
  /** The comment id answered with the 201. */
  replyId: string | null;
}

interface ReplyRow {
  idempotency_key: string;
  text: string;
  state: string;
  reply_comment_id: string | null;
}

interface CommentJson {
  id: string;
  mine: boolean;
}
type ErrorJson = { error?: { code?: string; message?: string } };

/** `count` X posts, each with COMMENTS_PER_POST replies by others read: the comments' ids. */
async function postsWithComments(cluster: Cluster, world: World, tag: string, count: number) {
  const created = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      cluster.call<{ data: { id: string } }>('POST', '/posts', {
        content: `${tag} post ${index}`,
        social_account_ids: [world.x],
      }),
    ),
  );
  const accepted = created.flatMap((answer) =>
    answer.status === 201 ? [answer.body.data.id] : [],
  );
  const published = await waitForEnd(cluster, accepted, 60_000);
  for (const post of published) {
    const platformPostId = (post.post_targets[0] as { platform_post_id?: string } | undefined)
      ?.platform_post_id;
    if (!platformPostId) throw new Error(`post ${post.id} has no X id`);
    for (let n = 0; n < COMMENTS_PER_POST; n++) {
      cluster.x.addReply(platformPostId, `${tag} question ${n} on ${post.id}`);
    }
    await cluster.call('POST', `/posts/${post.id}/comments/refresh`);
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const lists = await Promise.all(
      accepted.map((id) => cluster.call<{ data: CommentJson[] }>('GET', `/posts/${id}/comments`)),
    );
    const others = lists.flatMap((list) =>
      list.status === 200 ? list.body.data.filter((c) => !c.mine).map((c) => c.id) : [],
    );
    if (others.length === accepted.length * COMMENTS_PER_POST) {
      return { accepted, published, commentIds: others };
    }
    if (Date.now() > deadline) throw new Error(`comments not read: ${others.length} found`);
    await sleep(300);
  }
}

/** What one answer to a reply means: an ending, or null to ask again. */
function endingOf(answer: Answer<unknown>): Exclude<Ending, 'abandoned' | 'undecided'> | null {
  if (answer.status === 201) return 'sent';
  if (answer.status === 0 || answer.status >= 500) return null;
  const message = (answer.body as ErrorJson | null)?.error?.message ?? '';
  if (answer.status === 409 && /outcome is unknown/.test(message)) return 'outcome_unknown';
  if (answer.status === 409 && /ask again shortly/.test(message)) return null;
  return 'refused';
}

/** Asks for the reply with its key until a definite answer (or gives up, or runs out of time). */
async function askUntilDefinite(
  cluster: Cluster,
  db: pg.Pool,
  ask: Ask,
  statuses: Map<number, number>,
) {
  const deadline = Date.now() + CLIENT_DEADLINE_MS;
  for (;;) {
    const answer = await cluster.call<{ data: CommentJson }>(
      'POST',
      `/comments/${ask.commentId}/replies`,
      { text: ask.text },
      { 'idempotency-key': ask.key },
    );
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const ending = endingOf(answer);
    if (ending) {
      ask.ending = ending;
      ask.replyId = ending === 'sent' ? answer.body.data.id : null;
      return;
    }
    if (ask.abandons && answer.status === 0) {
      ask.ending = 'abandoned';
      ask.leftSending = (await replyRows(db)).get(ask.key)?.state === 'sending';
      return;
    }
    if (Date.now() > deadline) {
      ask.ending = 'undecided';
      return;
    }
    await sleep(300 + Math.random() * 200);
  }
}

/** Every ask, CLIENTS at a time, each until its ending. */
async function askAll(cluster: Cluster, db: pg.Pool, asks: Ask[], statuses: Map<number, number>) {
  let next = 0;
  const client = async () => {
    while (next < asks.length) {
      const ask = asks[next++] as Ask;
      await askUntilDefinite(cluster, db, ask, statuses);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

/**
 * Until `stopped()` or the window ends: the API killed half a second or so after each time it
 * came back (replies are in flight by then; its restart takes seconds of its own), and a worker
 * killed every two seconds or so (sweeps in flight): kills about once a second in all.
 */
async function killAbout(cluster: Cluster, stopped: () => boolean): Promise<void> {
  const begun = Date.now();
  const going = () => !stopped() && Date.now() - begun < KILL_WINDOW_MS;
  const every = async (pauseMs: number, kill: () => Promise<void>) => {
    await sleep(pauseMs * (0.5 + Math.random()));
    while (going()) {
      await kill();
      await sleep(pauseMs * (0.5 + Math.random()));
    }
  };
  await Promise.all([
    every(600, () => cluster.killAndRestartApi()),
    every(2_000, () => cluster.killAndRestartWorker()),
  ]);
}

/** The replies as stored, by key. */
async function replyRows(db: pg.Pool): Promise<Map<string, ReplyRow>> {
  const { rows } = await db.query<ReplyRow>(
    'select idempotency_key, text, state, reply_comment_id from comment_replies',
  );
  return new Map(rows.map((row) => [row.idempotency_key, row]));
}

/** Polls until no reply is `sending` (the sweep settles the abandoned ones), or 30 s. */
async function waitForSettled(db: pg.Pool): Promise<Map<string, ReplyRow>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await replyRows(db);
    const sending = [...rows.values()].some((row) => row.state === 'sending');
    if (!sending || Date.now() > deadline) return rows;
    await sleep(500);
  }
}

/** Each abandoned key with a stored reply asked once more: the answers that disagree with it. */
async function askAbandonedAgain(cluster: Cluster, asks: Ask[], rows: Map<string, ReplyRow>) {
  const disagreeing: string[] = [];
  for (const ask of asks.filter((a) => a.ending === 'abandoned')) {
    const row = rows.get(ask.key);
    if (!row) continue;
    const answer = await cluster.call<{ data: CommentJson }>(
      'POST',
      `/comments/${ask.commentId}/replies`,
      { text: ask.text },
      { 'idempotency-key': ask.key },
    );
    const ending = endingOf(answer);
    const same =
      ending === row.state && (ending !== 'sent' || answer.body.data.id === row.reply_comment_id);
    if (!same) disagreeing.push(`${ask.key}: stored ${row.state}, answered ${answer.status}`);
  }
  return disagreeing;
}

/** The look-ups of our replies at X (the timeline read) since request `from`. */
const lookupsAtX = (cluster: Cluster, from: number) =>
  cluster.x.requests
    .slice(from)
    .filter((r) => r.method === 'GET' && /^\/2\/users\/[^/]+\/tweets$/.test(r.path)).length;

/** The checks of the run and its counts. */
function replyChecks(cluster: Cluster, asks: Ask[], rows: Map<string, ReplyRow>) {
  const sentToX = new Map<string, number>();
  for (const request of cluster.x.requests) {
    const text = (request.body as { text?: unknown; reply?: unknown } | null)?.text;
    if (request.method !== 'POST' || request.path !== '/2/tweets' || typeof text !== 'string') {
      continue;
    }
    sentToX.set(text, (sentToX.get(text) ?? 0) + 1);
  }
  const onX = new Map<string, number>();
  for (const tweet of cluster.x.tweets) onX.set(tweet.text, (onX.get(tweet.text) ?? 0) + 1);
  const twice = asks.filter((ask) => (sentToX.get(ask.text) ?? 0) > 1).length;
  const states = [...rows.values()].map((row) => row.state);
  const count = (state: string) => states.filter((s) => s === state).length;
  const endings = (ending: Ending) => asks.filter((ask) => ask.ending === ending).length;
  const wrong = asks.filter((ask) => {
    const row = rows.get(ask.key);
    if (ask.ending === 'sent') return row?.state !== 'sent' || row.reply_comment_id !== ask.replyId;
    if (ask.ending === 'outcome_unknown') return row?.state !== 'outcome_unknown';
    return false;
  }).length;
  const sentMissing = [...rows.values()].filter(
    (row) => row.state === 'sent' && onX.get(row.text) !== 1,
  ).length;
  const unknownOnX = [...rows.values()].filter(
    (row) => row.state === 'outcome_unknown' && onX.has(row.text),
  ).length;
  const swept = asks.filter((ask) => ask.leftSending);
  const settled = (ask: Ask) =>
    ['sent', 'outcome_unknown'].includes(rows.get(ask.key)?.state ?? '');
  const failures: string[] = [];
  if (twice > 0) failures.push(`${twice} replies sent to X twice`);
  if (count('sending') > 0) failures.push(`${count('sending')} replies left sending`);
  if (count('failed') > 0) failures.push(`${count('failed')} replies failed`);
  if (wrong > 0) failures.push(`${wrong} answers disagree with the reply stored`);
  if (sentMissing > 0) failures.push(`${sentMissing} sent replies not on X exactly once`);
  if (endings('undecided') > 0)
    failures.push(`${endings('undecided')} clients never had an answer`);
  if (endings('refused') > 0) failures.push(`${endings('refused')} replies refused`);
  const notes = [
    `  replies asked ${asks.length} (${REPLY_DELAY_MS} ms each at X): stored ${rows.size}, sent ${count('sent')}, outcome_unknown ${count('outcome_unknown')} (${unknownOnX} of them on X after all), sending ${count('sending')}; sent to X twice ${twice}`,
    `  clients: sent ${endings('sent')}, outcome_unknown ${endings('outcome_unknown')}, abandoned ${endings('abandoned')} (${asks.filter((a) => a.ending === 'abandoned' && !rows.has(a.key)).length} before their intent was stored, ${swept.length} left sending: settled by the sweep ${swept.filter((a) => settled(a)).length}), refused ${endings('refused')}, undecided ${endings('undecided')}`,
    `  kills: API ${cluster.apiKills}, workers ${cluster.kills}`,
  ];
  return { failures, notes };
}

/** Many replies while the API and 2 workers are SIGKILLed about once a second each. */
export async function repliesStorm(backend: Backend, size: Size): Promise<Result> {
  if (!backend.databaseUrl || !backend.redisUrl || !backend.prefix) {
    throw new Error('the fault suite needs PostgreSQL and Redis');
  }
  const db = new pg.Pool({ connectionString: backend.databaseUrl, max: 4 });
  const cluster = await startCluster({
    databaseUrl: backend.databaseUrl,
    redisUrl: backend.redisUrl,
    queuePrefix: backend.prefix,
    workers: 2,
    latencyMs: 50,
    env: ENV,
  });
  try {
    const world = await setUp(cluster);
    const tag = `replies-${Date.now()}`;
    const posts = Math.max(1, Math.ceil(size.replies / (COMMENTS_PER_POST * 4)));
    const { accepted, published, commentIds } = await postsWithComments(cluster, world, tag, posts);
    const counts = tally(cluster, accepted, published);
    const asks: Ask[] = Array.from({ length: size.replies }, (_, n) => ({
      key: `${tag}-key-${n}`,
      text: `${tag} reply ${n}`,
      commentId: commentIds[n % commentIds.length] ?? '',
      abandons: n % 4 === 3,
      ending: 'undecided',
      leftSending: false,
      replyId: null,
    }));
    cluster.x.replyDelay.ms = REPLY_DELAY_MS;
    const requestsBefore = cluster.x.requests.length;
    const begun = Date.now();
    const statuses = new Map<number, number>();
    let done = false;
    const killer = killAbout(cluster, () => done);
    await askAll(cluster, db, asks, statuses);
    const answeredAfter = (Date.now() - begun) / 1000;
    done = true;
    await killer;
    const left = [...(await replyRows(db)).values()].filter((r) => r.state === 'sending');
    const rows = await waitForSettled(db);
    const settledAfter = (Date.now() - begun) / 1000;
    const disagreeing = await askAbandonedAgain(cluster, asks, rows);
    const checked = replyChecks(cluster, asks, await replyRows(db));
    const errorLines = cluster.errorLines();
    const fivehundreds = [...statuses].filter(([status]) => status >= 500 && status !== 503);
    return {
      name: 'replies under a SIGKILL storm',
      tally: counts,
      statuses,
      kills: cluster.kills,
      missingWebhooks: 0,
      errorLines,
      seconds: (Date.now() - begun) / 1000,
      notes: [
        ...checked.notes,
        `  every client answered ${answeredAfter.toFixed(1)} s after the first ask; ${left.length} replies still sending then (abandoned: the sweep's), none ${settledAfter.toFixed(1)} s after it; look-ups at X ${lookupsAtX(cluster, requestsBefore)}`,
      ],
      failures: [
        ...checked.failures,
        ...disagreeing.slice(0, 5).map((line) => `abandoned key asked again: ${line}`),
        ...(counts.published === posts ? [] : ['not every post was published']),
        ...(fivehundreds.length > 0
          ? [`API answered ${fivehundreds.map(([s, n]) => `${n}x ${s}`).join(', ')}`]
          : []),
        ...(errorLines.length > 0 ? [`${errorLines.length} error log lines`] : []),
      ],
    };
  } finally {
    await cluster.close();
    await db.end();
  }
}
