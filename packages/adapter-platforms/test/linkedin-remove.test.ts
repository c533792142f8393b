import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commentPath } from '../src/linkedin/remove.ts';
import {
  expectPublished,
  type FakeLinkedin,
  LINKEDIN_ERRORS,
  makeRequest,
  publisherFor,
  startFakeLinkedin,
  testConfig,
} from './helpers.ts';
import { expectThrottledFor, removerFor, removeTarget } from './remove-helpers.ts';

let fake: FakeLinkedin;
beforeAll(async () => {
  fake = await startFakeLinkedin();
});
afterAll(() => fake.close());

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
const remover = () => removerFor('linkedin', config());
const member = () => `urn:li:person:${fake.member.sub}`;
const ORGANIZATION = 'urn:li:organization:2414183';
let unique = 0;

/** A post published on the fake as `author`, with its first comment. */
async function published(author = member()) {
  const h = makeRequest({
    platform: 'linkedin',
    content: `To be taken down #${++unique}`,
    firstComment: `A comment #${unique}`,
    externalId: author,
  });
  const outcome = expectPublished(await publisherFor('linkedin', config()).publish(h.request));
  return { platformPostId: outcome.platformPostId, firstCommentId: outcome.firstCommentId ?? null };
}
const target = (
  ids: { platformPostId: string; firstCommentId?: string | null },
  externalId = member(),
  accessToken = 'access-1',
) => ({ platform: 'linkedin' as const, externalId, accessToken, ...ids });
const deletesSince = (from: number) =>
  fake.requests.slice(from).filter((r) => r.method === 'DELETE');

describe('linkedin remover', () => {
  it('reads the comment URN for its post and id', () => {
    expect(commentPath('urn:li:comment:(urn:li:share:7,99)', 'urn:li:share:1')).toBe(
      '/rest/socialActions/urn%3Ali%3Ashare%3A7/comments/99',
    );
    expect(commentPath('99', 'urn:li:share:1')).toBe(
      '/rest/socialActions/urn%3Ali%3Ashare%3A1/comments/99',
    );
  });

  it('deletes the comment as its actor, then the post (versioned Rest.li headers, 204)', async () => {
    const ids = await published();
    const from = fake.requests.length;
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const [comment, post] = deletesSince(from);
    const urn = encodeURIComponent(ids.platformPostId);
    expect(comment?.path).toMatch(new RegExp(`^/rest/socialActions/${urn}/comments/\\d+$`));
    expect(comment?.query.actor).toBe(member());
    expect(post?.path).toBe(`/rest/posts/${urn}`);
    expect(post?.headers).toMatchObject({
      'linkedin-version': '202510',
      'x-restli-protocol-version': '2.0.0',
      'x-restli-method': 'DELETE',
    });
    expect(fake.posts.some((p) => p.urn === ids.platformPostId)).toBe(false);
    expect(fake.comments.some((c) => c.urn === ids.firstCommentId)).toBe(false);
  });

  it("deletes an organization's post as the organization", async () => {
    const ids = await published(ORGANIZATION);
    expect(await removeTarget(remover(), target(ids, ORGANIZATION))).toEqual({ kind: 'removed' });
    expect(fake.posts.some((p) => p.urn === ids.platformPostId)).toBe(false);
  });

  it('asked again (204 for the post, 404 for the comment), or for an unknown post: removed', async () => {
    const ids = await published();
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    expect(await removeTarget(remover(), target(ids))).toEqual({ kind: 'removed' });
    const unknown = target({ platformPostId: 'urn:li:share:404404' });
    expect(await removeTarget(remover(), unknown)).toEqual({ kind: 'removed' });
  });

  it('a 429 waits as Retry-After says', async () => {
    const ids = await published();
    fake.script({ error: LINKEDIN_ERRORS.throttled, on: 'commentDelete', retryAfterSeconds: 90 });
    const outcome = await removeTarget(remover(), target(ids));
    expectThrottledFor(outcome, 89_000, 99_000 + 1_000);
    expect(outcome).toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(fake.posts.some((p) => p.urn === ids.platformPostId)).toBe(true);
  });

  it('a revoked token (401) is connection_expired', async () => {
    const ids = await published();
    fake.revokeAccessToken('revoked-token');
    const outcome = await removeTarget(remover(), target(ids, member(), 'revoked-token'));
    expect(outcome).toMatchObject({
      kind: 'connection_expired',
      message: /^REVOKED_ACCESS_TOKEN: /,
    });
  });

  it('a 500 is retried; a post of someone else is refused for good (403)', async () => {
    const ids = await published();
    fake.script({ error: LINKEDIN_ERRORS.serverError, on: 'postDelete' });
    expect(await removeTarget(remover(), target(ids))).toMatchObject({
      kind: 'failed',
      code: 'INTERNAL_SERVER_ERROR',
      retryable: true,
    });
    const other = await published(ORGANIZATION);
    fake.organizations[0] = {
      ...fake.organizations[0],
      role: 'ANALYST',
    } as (typeof fake.organizations)[0];
    const refused = await removeTarget(
      remover(),
      target({ platformPostId: other.platformPostId }, ORGANIZATION),
    );
    fake.organizations[0] = {
      ...fake.organizations[0],
      role: 'ADMINISTRATOR',
    } as (typeof fake.organizations)[0];
    expect(refused).toMatchObject({ kind: 'failed', code: 'ACCESS_DENIED', retryable: false });
    expect(fake.posts.some((p) => p.urn === other.platformPostId)).toBe(true);
  });
});
