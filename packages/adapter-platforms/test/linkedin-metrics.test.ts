import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLinkedin, LINKEDIN_ERRORS, startFakeLinkedin, testConfig } from './helpers.ts';
import { metricsOf, readerFor, readPosts, resultOf } from './numbers-read.ts';

const ORG = 'urn:li:organization:2414183';
const MEMBER = 'urn:li:person:fAkEmEmBeR1';

let fake: FakeLinkedin;
beforeAll(async () => {
  // An app approved for r_member_social, so member posts can be read too.
  fake = await startFakeLinkedin({
    authorizedScopes: [
      'openid',
      'profile',
      'w_member_social',
      'r_member_social',
      'w_organization_social',
      'rw_organization_admin',
      'r_organization_social',
    ],
  });
});
afterAll(() => fake.close());

const reader = () =>
  readerFor(
    'linkedin',
    testConfig({
      linkedin: {
        apiBaseUrl: fake.baseUrl,
        tokenBaseUrl: fake.baseUrl,
        apiVersion: '202510',
        organizations: 'true',
      },
    }),
  );
const readAs = (author: string, ...urns: string[]) =>
  readPosts(
    reader(),
    { platform: 'linkedin', externalId: author },
    urns.map((id) => ({ id })),
  );
const post = (urn: string, author: string) => {
  fake.postAuthors.set(urn, author);
  return urn;
};

describe('linkedin numbers', () => {
  it('declares one post per call and what it fills; no scope every connection needs', () => {
    const r = reader();
    expect(r.batchSize).toBe(1);
    expect([...r.reports].sort()).toEqual(
      ['clicks', 'comments', 'impressions', 'likes', 'reach', 'shares'].sort(),
    );
    expect(r.scopes).toEqual([]);
  });

  it("an organization's post: social actions and share statistics, versioned", async () => {
    const urn = post('urn:li:share:7300000000000000101', ORG);
    fake.postNumbers.set(urn, {
      likes: 40,
      comments: 7,
      impressions: 1200,
      uniqueImpressions: 800,
      clicks: 33,
      shares: 5,
    });
    const from = fake.requests.length;
    const result = metricsOf(await readAs(ORG, urn), urn);
    const calls = fake.requests.slice(from);
    expect(calls.map((r) => r.path)).toEqual([
      `/rest/socialActions/${encodeURIComponent(urn)}`,
      '/rest/organizationalEntityShareStatistics',
    ]);
    for (const call of calls) {
      expect(call.headers['linkedin-version']).toBe('202510');
      expect(call.headers['x-restli-protocol-version']).toBe('2.0.0');
      expect(call.headers.authorization).toBe('Bearer access-1');
    }
    expect(calls[1]?.query).toEqual({
      q: 'organizationalEntity',
      organizationalEntity: ORG,
      // As read back from the query (on the wire the URN inside List() is percent-encoded).
      shares: `List(${urn})`,
    });
    expect(result.metrics).toEqual({
      views: null,
      impressions: 1200,
      reach: 800,
      likes: 40,
      comments: 7,
      shares: 5,
      quotes: null,
      saves: null,
      clicks: 33,
    });
    expect(result.raw).toMatchObject({
      likesSummary: { totalLikes: 40 },
      commentsSummary: { aggregatedTotalComments: 7 },
      totalShareStatistics: { impressionCount: 1200, uniqueImpressionsCount: 800 },
    });
  });

  it('a ugcPost URN is asked as ugcPosts=List(...)', async () => {
    const urn = post('urn:li:ugcPost:7300000000000000102', ORG);
    fake.postNumbers.set(urn, { impressions: 10 });
    const from = fake.requests.length;
    expect(metricsOf(await readAs(ORG, urn), urn).metrics.impressions).toBe(10);
    const stats = fake.requests.slice(from).at(-1);
    expect(stats?.query.ugcPosts).toBe(`List(${urn})`);
  });

  it("a member's post: social actions only, the statistics stay null", async () => {
    const urn = post('urn:li:share:7300000000000000103', MEMBER);
    fake.postNumbers.set(urn, { likes: 3, comments: 0 });
    const from = fake.requests.length;
    const { metrics } = metricsOf(await readAs(MEMBER, urn), urn);
    expect(fake.requests.slice(from)).toHaveLength(1);
    expect(metrics).toMatchObject({ likes: 3, comments: 0, impressions: null, reach: null });
  });

  it('a deleted post (404) is gone', async () => {
    const urn = post('urn:li:share:7300000000000000104', ORG);
    fake.postNumbers.remove(urn);
    expect(resultOf(await readAs(ORG, urn), urn)).toMatchObject({ kind: 'gone' });
  });

  it('a 429 throttles until Retry-After', async () => {
    const urn = post('urn:li:share:7300000000000000105', ORG);
    fake.script({ on: 'socialActions', error: LINKEDIN_ERRORS.throttled, retryAfterSeconds: 120 });
    const before = Date.now();
    const outcome = await readAs(ORG, urn);
    expect(outcome).toMatchObject({ kind: 'throttled', code: 'TOO_MANY_REQUESTS' });
    if (outcome.kind === 'throttled') {
      const waitMs = outcome.retryAt.getTime() - before;
      expect(waitMs).toBeGreaterThanOrEqual(120_000);
      expect(waitMs).toBeLessThan(135_000);
    }
  });

  it("a 401 expires the connection; a 5xx fails with LinkedIn's code", async () => {
    const urn = post('urn:li:share:7300000000000000106', ORG);
    fake.revokeAccessToken('revoked-token');
    const expired = await readPosts(
      reader(),
      { platform: 'linkedin', externalId: ORG, accessToken: 'revoked-token' },
      [{ id: urn }],
    );
    expect(expired).toMatchObject({ kind: 'connection_expired' });
    fake.script({ on: 'shareStatistics', error: LINKEDIN_ERRORS.serverError });
    expect(resultOf(await readAs(ORG, urn), urn)).toMatchObject({
      kind: 'failed',
      code: 'INTERNAL_SERVER_ERROR',
    });
  });
});

describe('linkedin numbers without the read permissions', () => {
  let bare: FakeLinkedin;
  beforeAll(async () => {
    bare = await startFakeLinkedin({
      authorizedScopes: ['openid', 'profile', 'w_member_social', 'w_organization_social'],
    });
  });
  afterAll(() => bare.close());
  const bareReader = () =>
    readerFor(
      'linkedin',
      testConfig({ linkedin: { apiBaseUrl: bare.baseUrl, apiVersion: '202510' } }),
    );

  it('a 403 is unavailable, naming the scope the author needs', async () => {
    bare.postAuthors.set('urn:li:share:1', ORG);
    bare.postAuthors.set('urn:li:share:2', MEMBER);
    const org = await readPosts(bareReader(), { platform: 'linkedin', externalId: ORG }, [
      { id: 'urn:li:share:1' },
    ]);
    const orgResult = resultOf(org, 'urn:li:share:1');
    expect(orgResult.kind === 'unavailable' && orgResult.message).toMatch(
      /reconnect the account to grant r_organization_social/,
    );
    const member = await readPosts(bareReader(), { platform: 'linkedin', externalId: MEMBER }, [
      { id: 'urn:li:share:2' },
    ]);
    const memberResult = resultOf(member, 'urn:li:share:2');
    expect(memberResult.kind === 'unavailable' && memberResult.message).toMatch(
      /r_member_social.*approved apps only/,
    );
  });
});
