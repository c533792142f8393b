/**
 * What every fault scenario does around its fault: connect a TikTok, an Instagram and an X
 * account and subscribe a webhook, create posts of three kinds (TikTok + Instagram video, an
 * Instagram photo with a first comment, an X thread of three parts), wait for them to end, and
 * count what matters: posts that never ended, posts any part of which reached a platform twice
 * (counted at the fakes), targets that ended outcome_unknown, and the API's 5xx answers.
 */
import type { Cluster } from './cluster.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const TERMINAL = new Set(['published', 'partial', 'failed', 'cancelled']);

export interface World {
  tiktok: string;
  instagram: string;
  x: string;
}

export async function setUp(cluster: Cluster): Promise<World> {
  const ids: Record<string, string> = {};
  const bodies = [
    { platform: 'tiktok', external_id: 'tt-chaos', access_token: 'token-tiktok-chaos' },
    { platform: 'instagram', external_id: '17841400000000001', access_token: 'token-ig-chaos' },
    { platform: 'twitter', external_id: cluster.x.user.id, access_token: 'token-x-chaos' },
  ];
  for (const body of bodies) {
    const created = await cluster.call<{ data: { id: string } }>('POST', '/social-accounts', {
      ...body,
      display_name: `${body.platform} chaos`,
    });
    if (created.status !== 201) {
      throw new Error(`POST /social-accounts: ${created.status} ${JSON.stringify(created.body)}`);
    }
    ids[body.platform] = created.body.data.id;
  }
  const hook = await cluster.call('POST', '/webhooks', {
    url: cluster.receiver.url,
    events: ['post.published', 'post.partial', 'post.failed'],
  });
  if (hook.status !== 201)
    throw new Error(`POST /webhooks: ${hook.status} ${JSON.stringify(hook.body)}`);
  return { tiktok: ids.tiktok ?? '', instagram: ids.instagram ?? '', x: ids.twitter ?? '' };
}

/** The body of post `index`: every third one a thread, every third one a first comment. */
function postBody(cluster: Cluster, world: World, content: string, index: number) {
  switch (index % 3) {
    case 1:
      return {
        content,
        social_account_ids: [world.instagram],
        media_urls: [cluster.media.url(`${content.replace(/\W/g, '-')}.jpg`, 2048)],
        first_comment: `${content} comment`,
      };
    case 2:
      return {
        content,
        social_account_ids: [world.x],
        thread: [{ content: `${content} 2/3` }, { content: `${content} 3/3` }],
      };
    default:
      return {
        content,
        social_account_ids: [world.tiktok, world.instagram],
        media_urls: [cluster.media.url(`${content.replace(/\W/g, '-')}.mp4`, 2048)],
      };
  }
}

export interface Created {
  /** Ids of the posts the API accepted (201). */
  accepted: string[];
  /** Answers by HTTP status (0: no answer at all). */
  statuses: Map<number, number>;
}

/**
 * Creates `count` posts, `perSecond` at a time each second (or as fast as answers come when
 * perSecond is Infinity); each has its own content so the fakes can tell them apart.
 */
export async function createPosts(
  cluster: Cluster,
  world: World,
  tag: string,
  count: number,
  perSecond = Number.POSITIVE_INFINITY,
): Promise<Created> {
  const accepted: string[] = [];
  const statuses = new Map<number, number>();
  const one = async (index: number) => {
    const answer = await cluster.call<{ data: { id: string } }>(
      'POST',
      '/posts',
      postBody(cluster, world, `${tag} ${index}`, index),
    );
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    if (answer.status === 201) accepted.push(answer.body.data.id);
  };
  const batch = Number.isFinite(perSecond) ? Math.max(1, Math.round(perSecond)) : 16;
  for (let start = 0; start < count; start += batch) {
    const begun = Date.now();
    const indexes = Array.from({ length: Math.min(batch, count - start) }, (_, i) => start + i);
    await Promise.all(indexes.map(one));
    if (Number.isFinite(perSecond)) await sleep(Math.max(0, 1_000 - (Date.now() - begun)));
  }
  return { accepted, statuses };
}

interface TargetJson {
  platform: string;
  status: string;
  error_code: string | null;
  error_message: string | null;
}
interface PostJson {
  id: string;
  content: string;
  status: string;
  post_targets: TargetJson[];
}

/** Polls until every post in `ids` has ended, or `timeoutMs` passed; returns the last view. */
export async function waitForEnd(
  cluster: Cluster,
  ids: readonly string[],
  timeoutMs: number,
): Promise<PostJson[]> {
  const wanted = new Set(ids);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await cluster.call<{ data: PostJson[] }>('GET', '/posts');
    const posts =
      answer.status === 200 ? answer.body.data.filter((post) => wanted.has(post.id)) : [];
    const open = posts.length < wanted.size || posts.some((post) => !TERMINAL.has(post.status));
    if ((!open && answer.status === 200) || Date.now() > deadline) return posts;
    await sleep(500);
  }
}

export interface Tally {
  posts: number;
  /** Accepted posts that did not end (or vanished). */
  lost: number;
  /** Posts published more than once on some platform (counted at the fakes). */
  duplicated: number;
  published: number;
  outcomeUnknown: number;
  /** outcome_unknown targets by platform. */
  unknownByPlatform: Record<string, number>;
  /** Other failed targets, by error code. */
  failedByCode: Record<string, number>;
  /** The first few failed targets as `platform code: message`, to say why. */
  failures: string[];
}

/** The post a part belongs to: a thread part or a comment carries its post's content first. */
const postOf = (text: string) => text.replace(/ (\d\/3|comment)$/, '');

/**
 * Counts at the fakes, per text: TikTok publishes, Instagram media and comments, X posts (the
 * main post and each follow-up). X itself refuses a repeated text (403 duplicate), so a part
 * sent twice shows there as a target failed `duplicate_content`: counted as twice too.
 */
export function tally(cluster: Cluster, accepted: readonly string[], posts: PostJson[]): Tally {
  const perCaption = new Map<string, number>();
  const bump = (platform: string, caption: unknown) => {
    if (typeof caption !== 'string') return;
    const key = `${platform} ${caption}`;
    perCaption.set(key, (perCaption.get(key) ?? 0) + 1);
  };
  for (const publish of cluster.tiktok.publishes) {
    const info = publish.body.post_info as { title?: unknown } | undefined;
    bump('tiktok', info?.title);
  }
  const containers = new Map(cluster.instagram.containers.map((c) => [c.id, c]));
  for (const media of cluster.instagram.media) {
    bump('instagram', containers.get(media.containerId)?.params.caption);
  }
  for (const comment of cluster.instagram.comments) bump('instagram-comment', comment.message);
  for (const tweet of cluster.x.tweets) bump('x', tweet.text);
  const duplicatedPosts = new Set<string>();
  for (const [key, count] of perCaption) {
    if (count > 1) duplicatedPosts.add(postOf(key.slice(key.indexOf(' ') + 1)));
  }
  for (const post of posts) {
    const refused = post.post_targets.some((t) => t.error_code === 'duplicate_content');
    if (refused) duplicatedPosts.add(post.content);
  }
  const mine = new Set(posts.map((post) => post.content));
  const failedByCode: Record<string, number> = {};
  let outcomeUnknown = 0;
  const unknownByPlatform: Record<string, number> = {};
  const failures: string[] = [];
  let published = 0;
  for (const post of posts) {
    if (post.status === 'published') published += 1;
    for (const target of post.post_targets) {
      if (target.status !== 'failed') continue;
      if (failures.length < 5) {
        failures.push(`${target.platform} ${target.error_code}: ${target.error_message}`);
      }
      if (target.error_code === 'outcome_unknown') {
        outcomeUnknown += 1;
        unknownByPlatform[target.platform] = (unknownByPlatform[target.platform] ?? 0) + 1;
      } else
        failedByCode[target.error_code ?? '?'] = (failedByCode[target.error_code ?? '?'] ?? 0) + 1;
    }
  }
  return {
    posts: accepted.length,
    lost: accepted.length - posts.filter((post) => TERMINAL.has(post.status)).length,
    duplicated: [...duplicatedPosts].filter((content) => mine.has(content)).length,
    published,
    outcomeUnknown,
    unknownByPlatform,
    failedByCode,
    failures,
  };
}

/** Posts of `posts` whose terminal webhook did not arrive at the receiver. */
export function missingWebhooks(cluster: Cluster, posts: PostJson[]): number {
  let missing = 0;
  for (const post of posts) {
    const event = post.status === 'published' ? 'post.published' : `post.${post.status}`;
    if (!cluster.receiver.events.get(`${event} ${post.id}`)?.size) missing += 1;
  }
  return missing;
}
