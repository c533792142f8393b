// The LinkedIn comments client against the fake LinkedIn: an organization post's comments (its
// connection holds r_organization_social), a member's post `unsupported` without
// r_member_social, the replies under a comment read with it (asked only of comments that have
// some), a reply with parentComment as the author, found again among the comment's replies,
// the author's own reply deleted, and a reply to a missing comment `gone`.
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

  it("reads each comment's replies with it, asking only the comments that have some", async () => {
    const postUrn = await publishedPost();
    const quiet = fake.addComment(postUrn, 'Nice');
    const asked = fake.addComment(postUrn, 'When does it ship?');
    const answer = fake.addComment(asked.urn, 'Next week, I heard');
    const edgesRead = () =>
      fake.requests
        .filter((r) => r.method === 'GET' && r.path.endsWith('/comments'))
        .map((r) => decodeURIComponent(r.path.split('/')[3] ?? ''));
    const before = edgesRead().length;
    const listed = await list(postUrn);
    if (listed.kind !== 'listed') throw new Error(JSON.stringify(listed));
    expect(listed.comments.map((c) => [c.platformCommentId, c.parentPlatformId])).toEqual([
      [asked.urn, null],
      [answer.urn, asked.urn],
      [quiet.urn, null],
    ]);
    expect(listed.comments[1]).toMatchObject({ text: 'Next week, I heard', mine: false });
    expect(edgesRead().slice(before)).toEqual([postUrn, asked.urn]);
    const limited = await client.list({
      connection: connection(),
      platformPostId: postUrn,
      since: null,
      limit: 2,
      signal: signal(),
    });
    expect(limited).toMatchObject({ kind: 'listed', comments: [{}, {}] });
  });

  it('a comment deleted between the two reads gives no replies; the post is still read', async () => {
    const postUrn = await publishedPost();
    const asked = fake.addComment(postUrn, 'Still hiring?');
    fake.addComment(asked.urn, 'Following');
    const replies = `/rest/socialActions/${encodeURIComponent(asked.urn)}/comments`;
    fake.script({
      error: { status: 404, code: 'NOT_FOUND', message: `${asked.urn} does not exist` },
      path: replies,
    });
    expect(await list(postUrn)).toMatchObject({
      kind: 'listed',
      comments: [{ platformCommentId: asked.urn }],
    });
    expect(fake.requests.at(-1)?.path).toBe(replies);
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
