// Database round trips of the publish pipeline on the real repositories (PGlite): one post
// with 3 targets and 1 webhook, from createPost to the delivered webhook. Every statement is
// counted by a Kysely plugin; a unit of work adds its BEGIN and COMMIT (2 more).

import {
  type CoreDeps,
  createPost,
  createWebhook,
  deliverWebhook,
  type JobHandlers,
  processPublishJob,
  processUnpublishJob,
  type UnitOfWork,
} from '@social-publisher/domain';
import { createTestDeps, seedConnection, seedUser } from '@social-publisher/domain/testing';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../src/index.ts';
import { type Backend, openPgliteBackend } from './backends.ts';

class CountingPlugin implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }
  /** Once per executed statement (transformQuery also runs for a query embedded in another). */
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.count++;
    return args.result;
  }
}

describe('database round trips of one 3-target post with 1 webhook', () => {
  let backend: Backend | undefined;
  beforeAll(async () => {
    backend = await openPgliteBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });

  it('counts the statements of create, publish job and webhook delivery', async () => {
    if (!backend) throw new Error('no backend');
    const counter = new CountingPlugin();
    const storage = createStorage(backend.handle.db.withPlugin(counter));
    const uow: UnitOfWork = {
      run: (work) => {
        counter.count += 2; // BEGIN, COMMIT
        return storage.uow.run(work);
      },
    };
    const base = createTestDeps();
    const deps: CoreDeps = { ...base, repos: storage.repos, uow };
    const handlers: JobHandlers = {
      publish: (postId, ctx) => processPublishJob(deps, postId, ctx),
      deliver: (deliveryId, ctx) => deliverWebhook(deps, deliveryId, ctx),
      unpublish: (postId, ctx) => processUnpublishJob(deps, postId, ctx),
    };

    const alice = await seedUser(deps, 'alice@example.com');
    const connections = await Promise.all(
      (['tiktok', 'youtube', 'instagram'] as const).map((platform) =>
        seedConnection(deps, alice.user.id, platform),
      ),
    );
    const hook = await createWebhook(deps, alice.ctx, {
      url: 'https://hooks.example.com/sp',
      events: ['post.published'],
    });
    expect(hook.ok).toBe(true);

    counter.count = 0;
    const created = await createPost(
      deps,
      alice.ctx,
      {
        content: 'launch',
        social_account_ids: connections.map((c) => c.id),
        media_urls: ['https://cdn.example.com/v.mp4'],
      },
      'now',
    );
    expect(created.ok ? null : created.error).toBeNull();
    const create = counter.count;

    counter.count = 0;
    expect(await base.queue.runDue(handlers)).toBe(1);
    const publish = counter.count;

    counter.count = 0;
    expect(await base.queue.runDue(handlers)).toBe(1);
    const deliver = counter.count;
    expect(base.webhookSender.requests).toHaveLength(1);
    expect(base.queue.jobs.size).toBe(0);

    // Before batching (claimTargets, findByIds, one-query findById, guarded insertMany,
    // findWithWebhook, createPost without a transaction): create 6, publish 19, delivery 3.
    // Publish then 10; now 5: one start statement (status + claims), the connections, the three
    // completions as one shared statement, no re-read (the run knows every target), the
    // webhooks, the outcome with its deliveries. The event catalogue adds one to each: the
    // subscribers of post.created, and of the three post.target.published (one shared query).
    expect({ create, publish, deliver }).toEqual({ create: 3, publish: 6, deliver: 2 });
    console.info(
      `[round trips] create ${create}, publish job ${publish}, delivery ${deliver}, ` +
        `pipeline (publish + delivery) ${publish + deliver}`,
    );
  });
});
