import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterCrash,
  expectPublished,
  type FakeLinkedin,
  makeRequest,
  publisherFor,
  startFakeLinkedin,
  testConfig,
} from './helpers.ts';

let fake: FakeLinkedin;
beforeAll(async () => {
  fake = await startFakeLinkedin({ refreshTokens: true });
});
afterAll(async () => {
  await fake.close();
});

const publisher = () =>
  publisherFor(
    'linkedin',
    testConfig({
      linkedin: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        clientId: 'linkedin-client-id',
        clientSecret: 'linkedin-client-secret',
        apiVersion: '202510',
      },
    }),
  );
const member = () => `urn:li:person:${fake.member.sub}`;
let unique = 0;
const text = (label: string) => `${label} #${++unique}`;
const request = (content: string, firstComment: string) =>
  makeRequest({ platform: 'linkedin', content, firstComment, externalId: member() });

describe('linkedin publisher: first comment', () => {
  it('comments on the post as its author (socialActions comments) and returns both ids', async () => {
    const content = text('With a comment');
    const outcome = expectPublished(
      await publisher().publish(request(content, 'More here').request),
    );
    const comment = fake.comments.at(-1);
    expect(comment).toMatchObject({
      object: outcome.platformPostId,
      actor: member(),
      text: 'More here',
    });
    expect(outcome.firstCommentId).toBe(comment?.urn);
    expect(fake.posts.filter((post) => post.commentary === content)).toHaveLength(1);
  });

  it('a comment that fails for a while is retried alone: the post is not re-posted', async () => {
    const content = text('Comment later');
    fake.script({
      error: { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal Server Error' },
      on: 'comment',
    });
    const h = request(content, 'second try');
    expect(await publisher().publish(h.request)).toMatchObject({ kind: 'failed', retryable: true });
    const outcome = expectPublished(await publisher().resume(afterCrash(h).request));
    expect(fake.posts.filter((post) => post.commentary === content)).toHaveLength(1);
    expect(fake.comments.filter((c) => c.object === outcome.platformPostId)).toHaveLength(1);
  });
});
