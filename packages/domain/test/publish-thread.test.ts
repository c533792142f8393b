import { describe, expect, it } from 'vitest';
import { createPost, processPublishJob } from '../src/index.ts';
import { createTestDeps, seedConnection, seedUser } from '../src/testing/index.ts';
import { jobCtx, unwrap } from './support.ts';

async function setup() {
  const deps = createTestDeps();
  const alice = await seedUser(deps, 'alice@example.com');
  const connection = await seedConnection(deps, alice.user.id, 'tiktok');
  const post = unwrap(
    await createPost(
      deps,
      alice.ctx,
      {
        content: 'hello',
        social_account_ids: [connection.id],
        media_urls: ['https://cdn.example.com/a.mp4'],
      },
      'now',
    ),
  );
  return { deps, post };
}

describe('processPublishJob: what a target published besides its main post', () => {
  it('a published outcome stores its follow-up and comment ids on the target', async () => {
    const { deps, post } = await setup();
    deps.platforms.publisher('tiktok').script({
      kind: 'published',
      platformPostId: 'main',
      platformUrl: null,
      threadPostIds: ['reply-1', 'reply-2'],
      firstCommentId: 'comment-1',
    });
    await processPublishJob(deps, post.id, jobCtx());
    const [target] = (await deps.repos.posts.findById(post.id))?.targets ?? [];
    expect(target).toMatchObject({
      status: 'published',
      platformPostId: 'main',
      threadPostIds: ['reply-1', 'reply-2'],
      firstCommentId: 'comment-1',
    });
  });

  it('a failure after the main post went out keeps the ids published (never lost)', async () => {
    const { deps, post } = await setup();
    deps.platforms.publisher('tiktok').script({
      kind: 'failed',
      code: 'duplicate_content',
      message: 'refused',
      retryable: false,
      publishedSoFar: {
        platformPostId: 'main',
        platformUrl: 'https://x.test/main',
        threadPostIds: ['reply-1'],
      },
    });
    await processPublishJob(deps, post.id, jobCtx());
    const stored = await deps.repos.posts.findById(post.id);
    expect(stored?.status).toBe('failed');
    expect(stored?.targets[0]).toMatchObject({
      status: 'failed',
      errorCode: 'duplicate_content',
      platformPostId: 'main',
      platformUrl: 'https://x.test/main',
      threadPostIds: ['reply-1'],
      firstCommentId: null,
    });
  });
});
