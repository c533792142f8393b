// The LinkedIn comments client against the fake LinkedIn: an organization post's comments (its
// connection holds r_organization_social), a member's post `unsupported` without
// r_member_social, a reply with parentComment as the author, found again among the comment's
// replies, the author's own reply deleted, and a reply to a missing comment `gone`.
import type { PlatformCommentsClient, PublishConnection } from '@social-publisher/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformRegistry } from '../src/registry.ts';
import {
  expectPublished,
  type FakeLinkedin,
  makeRequest,
  publisherFor,
  startFakeLinkedin,
  testConfig,
} from './helpers.ts';

let fake: FakeLinkedin;
let client: PlatformCommentsClient;
const config = () =>
  testConfig({
    linkedin: {
      apiBaseUrl: fake.baseUrl,
      tokenBaseUrl: fake.baseUrl,
      clientId: 'linkedin-client-id',
      clientSecret: 'linkedin-client-secret',
      apiVersion: '202510',
    },
  });
beforeAll(async () => {
  fake = await startFakeLinkedin();
  const found = createPlatformRegistry(config()).commentsClient('linkedin');
  if (!found) throw new Error('no LinkedIn comments client');
  client = found;
});
afterAll(() => fake.close());

const ORGANIZATION = 'urn:li:organization:2414183';
const signal = () => new AbortController().signal;
const connection = (externalId = ORGANIZATION): PublishConnection => ({
  id: 'conn-1',
  platform: 'linkedin',
  externalId,
  accessToken: 'access-1',
  refreshToken: null,
  tokenExpiresAt: null,
  platformData: null,
});
let unique = 0;
async function publishedPost(author = ORGANIZATION): Promise<string> {
  const h = makeRequest({
    platform: 'linkedin',
    content: `News #${++unique}`,
    externalId: author,
  });
  return expectPublished(await publisherFor('linkedin', config()).publish(h.request))
    .platformPostId;
}
const list = (postUrn: string, externalId?: string) =>
  client.list({
    connection: connection(externalId),
    platformPostId: postUrn,
    since: null,
    limit: 100,
    signal: signal(),
  });

describe('LinkedIn comments', () => {
  it("reads an organization post's comments; a member's needs r_member_social", async () => {
    const postUrn = await publishedPost();
    const first = fake.addComment(postUrn, 'Congratulations');
    expect(await list(postUrn)).toEqual({
      kind: 'listed',
      comments: [
        {
          platformCommentId: first.urn,
          parentPlatformId: null,
          author: { id: first.actor, name: null, handle: null },
          text: 'Congratulations',
          createdAt: new Date(first.createdAt ?? 0),
          hidden: false,
          mine: false,
        },
      ],
    });
    const member = `urn:li:person:${fake.member.sub}`;
    const memberPost = await publishedPost(member);
    const refused = await list(memberPost, member);
    expect(refused).toMatchObject({ kind: 'unsupported', message: /r_member_social/ });
  });

  it('replies with parentComment, finds the reply again, deletes it; a missing comment is gone', async () => {
    const postUrn = await publishedPost();
    const question = fake.addComment(postUrn, 'Hiring?');
    const since = new Date(Date.now() - 2_000);
    const request = {
      connection: connection(),
      platformPostId: postUrn,
      platformCommentId: question.urn,
      text: 'Yes, see our page',
      idempotencyKey: 'k',
      intentAt: since,
      signal: signal(),
    };
    const sent = await client.reply(request);
    if (sent.kind !== 'sent') throw new Error(JSON.stringify(sent));
    expect(fake.comments.find((c) => c.urn === sent.comment.platformCommentId)).toMatchObject({
      parent: question.urn,
      actor: ORGANIZATION,
      text: 'Yes, see our page',
    });
    expect(await client.findReply({ ...request, since })).toMatchObject({
      kind: 'found',
      comment: { platformCommentId: sent.comment.platformCommentId, mine: true },
    });
    expect(await client.findReply({ ...request, text: 'No', since })).toEqual({
      kind: 'not_found',
    });
    const remove = await client.delete?.({
      ...request,
      platformCommentId: sent.comment.platformCommentId,
    });
    expect(remove).toEqual({ kind: 'done' });
    expect(fake.comments.some((c) => c.urn === sent.comment.platformCommentId)).toBe(false);
    const gone = await client.reply({
      ...request,
      platformCommentId: `urn:li:comment:(${postUrn},404)`,
    });
    expect(gone.kind).toBe('gone');
  });
});
