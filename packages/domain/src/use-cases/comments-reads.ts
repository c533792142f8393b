/**
 * The worker's pass over due comment reads, built like the metrics pass (read-pass.ts): claim
 * what is due under a lease, read connection by connection on the connection's read budget
 * (shared with the metrics reads, never publishing's), store the comments not stored yet with
 * their `comment.received` events in one unit of work, and set each track's next read on
 * COMMENTS_REFRESH_SCHEDULE. A platform's refusal fails nothing of ours: the track is `stale`.
 */
import type { CommentTrack, StoredComment } from '../comments-model.ts';
import type { CoreDeps } from '../deps.ts';
import { errorMessage } from '../errors.ts';
import type { SocialAccount } from '../model.ts';
import { nextScheduledRead } from '../policies/metrics-schedule.ts';
import type {
  CommentsListOutcome,
  CommentTrackUpdate,
  PlatformComment,
  PlatformCommentsClient,
  TrackPostponement,
} from '../ports/index.ts';
import { storeCommentEvents } from './comments-events.ts';
import { expireConnection } from './connection-tokens.ts';
import { enqueueDeliveries } from './pending-deliveries.ts';
import { decryptConnection } from './publish-request.ts';
import { connectionToRead, observeReadWait, paceRead, readByConnection } from './read-pass.ts';
import { sandboxComments } from './sandbox-comments.ts';

/** The most comments one read of one target stores (the platform's pages are followed to it). */
export const COMMENTS_READ_LIMIT = 500;

/** A read asks for comments from this long before the last read on: clocks differ. */
const SINCE_OVERLAP_MS = 60 * 60_000;

export interface CommentsPassReport {
  claimed: number;
  fresh: number;
  stale: number;
  gone: number;
  unsupported: number;
  postponed: number;
  /** New comments stored (ours included). */
  stored: number;
}

interface GroupResult {
  updates: CommentTrackUpdate[];
  postponed: TrackPostponement[];
  stored: number;
}

type TrackEnd =
  | { kind: 'read' }
  | { kind: 'failed'; message: string }
  | { kind: 'gone' | 'unsupported'; message: string };

/** The track after a read (or a refusal to read) at `at`, its next read set. */
function afterRead(
  deps: Pick<CoreDeps, 'settings'>,
  track: CommentTrack,
  end: TrackEnd,
  at: Date,
): CommentTrackUpdate {
  const schedule = deps.settings.commentsRefreshScheduleMs;
  const next = nextScheduledRead(track.publishedAt, track.step, at, schedule);
  const base = { targetId: track.targetId, step: next.step, dueAt: next.dueAt };
  switch (end.kind) {
    case 'read':
      return { ...base, state: 'fresh', error: null, readAt: at };
    case 'failed':
      return { ...base, state: 'stale', error: end.message };
    default:
      return { ...base, step: track.step, dueAt: null, state: end.kind, error: end.message };
  }
}

/** A platform's comment as we store it. */
export function storedFrom(
  deps: Pick<CoreDeps, 'ids'>,
  track: Pick<
    CommentTrack,
    'accountId' | 'postId' | 'targetId' | 'socialAccountId' | 'platform' | 'sandbox'
  >,
  comment: PlatformComment,
  at: Date,
): StoredComment {
  return {
    id: deps.ids.newId(),
    accountId: track.accountId,
    postId: track.postId,
    targetId: track.targetId,
    socialAccountId: track.socialAccountId,
    platform: track.platform,
    platformCommentId: comment.platformCommentId,
    parentPlatformId: comment.parentPlatformId,
    parentId: null,
    author: comment.author,
    text: comment.text,
    createdAt: comment.createdAt,
    hidden: comment.hidden,
    mine: comment.mine,
    // Our own comments are never news to us.
    read: comment.mine,
    receivedAt: at,
    sandbox: track.sandbox,
  };
}

/**
 * Stores the comments not stored yet and their events in one unit of work, then hands the
 * events to the queue: how many were new.
 */
async function storeNew(
  deps: CoreDeps,
  track: CommentTrack,
  comments: readonly PlatformComment[],
  at: Date,
): Promise<number> {
  if (comments.length === 0) return 0;
  const rows = comments.map((comment) => storedFrom(deps, track, comment, at));
  const { stored, deliveries } = await deps.uow.run(async (repos) => {
    const fresh = await repos.comments.insertNew(rows);
    return { stored: fresh.length, deliveries: await storeCommentEvents(deps, repos, fresh) };
  });
  await enqueueDeliveries(
    deps,
    deliveries.map((delivery) => delivery.id),
  );
  return stored;
}

async function listOf(
  deps: CoreDeps,
  client: PlatformCommentsClient,
  connection: SocialAccount,
  track: CommentTrack,
  signal: AbortSignal,
): Promise<CommentsListOutcome> {
  const since = track.readAt ? new Date(track.readAt.getTime() - SINCE_OVERLAP_MS) : null;
  try {
    return await client.list({
      connection: decryptConnection(deps, connection),
      platformPostId: track.platformPostId,
      since,
      limit: COMMENTS_READ_LIMIT,
      signal,
    });
  } catch (error) {
    return {
      kind: 'failed',
      code: 'internal_error',
      message: errorMessage(error),
      retryable: true,
    };
  }
}

/** Reads a connection's due tracks one by one; stops at the platform's "slow down". */
async function readTracks(
  deps: CoreDeps,
  client: PlatformCommentsClient,
  connection: SocialAccount,
  tracks: readonly CommentTrack[],
  signal: AbortSignal,
): Promise<GroupResult> {
  const result: GroupResult = { updates: [], postponed: [], stored: 0 };
  for (const [index, track] of tracks.entries()) {
    if (signal.aborted) break;
    const waitUntil = await paceRead(deps, connection, `comments:${track.targetId}`);
    const rest = () => tracks.slice(index).map((t) => t.targetId);
    if (waitUntil) {
      result.postponed.push(...rest().map((targetId) => ({ targetId, dueAt: waitUntil })));
      break;
    }
    const outcome = await listOf(deps, client, connection, track, signal);
    const at = deps.clock.now();
    if (outcome.kind === 'throttled') {
      await observeReadWait(deps, connection, outcome.retryAt);
      result.postponed.push(...rest().map((targetId) => ({ targetId, dueAt: outcome.retryAt })));
      break;
    }
    if (outcome.kind === 'connection_expired') {
      await expireConnection(deps, connection, outcome.message);
      const end = { kind: 'failed' as const, message: `connection_expired: ${outcome.message}` };
      result.updates.push(...tracks.slice(index).map((t) => afterRead(deps, t, end, at)));
      break;
    }
    if (outcome.kind === 'listed') {
      result.stored += await storeNew(deps, track, outcome.comments, at);
      result.updates.push(afterRead(deps, track, { kind: 'read' }, at));
    } else if (outcome.kind === 'failed') {
      const end = { kind: 'failed' as const, message: `${outcome.code}: ${outcome.message}` };
      result.updates.push(afterRead(deps, track, end, at));
    } else {
      result.updates.push(afterRead(deps, track, outcome, at));
    }
  }
  return result;
}

/** The due tracks of one connection: sandbox ones get made-up comments; the others are read. */
async function readConnection(
  deps: CoreDeps,
  connection: SocialAccount | null,
  tracks: readonly CommentTrack[],
  signal: AbortSignal,
): Promise<GroupResult> {
  const platform = tracks[0]?.platform ?? '';
  const client = deps.platforms.commentsClient(platform);
  const at = deps.clock.now();
  const sandbox = tracks.filter((track) => track.sandbox);
  const real = tracks.filter((track) => !track.sandbox);
  const result: GroupResult = { updates: [], postponed: [], stored: 0 };
  for (const track of sandbox) {
    result.stored += await storeNew(deps, track, sandboxComments(track, at), at);
    result.updates.push(afterRead(deps, track, { kind: 'read' }, at));
  }
  if (real.length === 0) return result;
  const reading = readingOf(connection, client, platform);
  if (!reading.ok) {
    result.updates.push(...real.map((track) => afterRead(deps, track, reading.end, at)));
    return result;
  }
  const read = await readTracks(deps, reading.client, reading.connection, real, signal);
  return { ...read, updates: [...result.updates, ...read.updates] };
}

type Reading =
  | { ok: true; client: PlatformCommentsClient; connection: SocialAccount }
  | { ok: false; end: TrackEnd };

/** The client and connection a real target's comments are read with, or why they cannot be. */
function readingOf(
  connection: SocialAccount | null,
  client: PlatformCommentsClient | undefined,
  platform: string,
): Reading {
  if (!client) {
    const message = `comments are not read for ${platform} posts`;
    return { ok: false, end: { kind: 'unsupported', message } };
  }
  const readable = connectionToRead(connection, client.scopes, 'reading comments');
  if (readable.ok) return { ok: true, client, connection: readable.connection };
  if (readable.kind === 'missing_scopes') {
    return { ok: false, end: { kind: 'unsupported', message: readable.message } };
  }
  return { ok: false, end: { kind: 'failed', message: `${readable.code}: ${readable.message}` } };
}

/** A report with nothing counted yet but the `claimed` tracks. */
export const emptyCommentsReport = (claimed: number): CommentsPassReport => ({
  claimed,
  fresh: 0,
  stale: 0,
  gone: 0,
  unsupported: 0,
  postponed: 0,
  stored: 0,
});

/**
 * One pass: claims up to `metricsPassSize` due comment reads, reads them (a few connections
 * at a time) and stores what they found. Whatever is not reached (shutting down) comes back
 * when its lease runs out.
 */
export async function readDueComments(
  deps: CoreDeps,
  signal: AbortSignal,
): Promise<CommentsPassReport> {
  const { settings, repos } = deps;
  const now = deps.clock.now();
  const leaseUntil = new Date(now.getTime() + settings.metricsReadLeaseMs);
  const tracks = await repos.comments.claimDue(now, settings.metricsPassSize, leaseUntil);
  const report = emptyCommentsReport(tracks.length);
  if (tracks.length === 0) return report;
  const reads = await readByConnection(deps, tracks, (connection, group) =>
    readConnection(deps, connection, group, signal),
  );
  const all: GroupResult = {
    updates: reads.flatMap((read) => read.updates),
    postponed: reads.flatMap((read) => read.postponed),
    stored: reads.reduce((sum, read) => sum + read.stored, 0),
  };
  await repos.comments.record(all.updates);
  if (all.postponed.length > 0) await repos.comments.postpone(all.postponed);
  for (const update of all.updates) {
    if (update.state !== 'pending') report[update.state]++;
  }
  return { ...report, postponed: all.postponed.length, stored: all.stored };
}
