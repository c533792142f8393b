/** Posts built the way createPost builds them, for the benchmarks that insert them directly. */
import type { CoreDeps, Platform, PostTarget, PostWithTargets } from '@social-publisher/domain';
import type { SeededUser } from './infra.ts';

export function buildPost(
  deps: CoreDeps,
  seeded: SeededUser,
  platforms: Platform[],
  options: { content?: string; scheduledAt?: Date | null } = {},
): PostWithTargets {
  const now = deps.clock.now();
  const postId = deps.ids.newId();
  const targets: PostTarget[] = platforms.map((platform) => {
    const socialAccountId = seeded.connections[platform];
    if (!socialAccountId) throw new Error(`no ${platform} connection seeded`);
    return {
      id: deps.ids.newId(),
      postId,
      platform,
      socialAccountId,
      sandbox: seeded.sandbox.has(platform),
      status: 'pending',
      attempts: 0,
      errorCode: null,
      errorMessage: null,
      retryable: null,
      platformPostId: null,
      platformUrl: null,
      threadPostIds: [],
      firstCommentId: null,
      resumeState: null,
      leaseExpiresAt: null,
      publishedAt: null,
      unpublish: null,
      updatedAt: now,
    };
  });
  const scheduledAt = options.scheduledAt ?? null;
  return {
    id: postId,
    accountId: seeded.ctx.accountId,
    createdBy: seeded.userId,
    seriesId: null,
    rejectionReason: null,
    content: options.content ?? 'Benchmark post',
    mediaUrls: [],
    platformOptions: {},
    thread: [],
    firstComment: null,
    scheduledAt,
    status: scheduledAt ? 'scheduled' : 'queued',
    createdAt: now,
    updatedAt: now,
    targets,
  };
}

/**
 * The insert createPost makes: one statement for the post and its targets (shared with the
 * inserts of the same moment, as the API's are).
 */
export function insertPost(deps: CoreDeps, post: PostWithTargets): Promise<void> {
  return deps.repos.posts.insert(post);
}
