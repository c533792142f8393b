// The reading half of the fake LinkedIn: a post's social actions
// (GET /rest/socialActions/{urn} -> likesSummary, commentsSummary) and an organization's share
// statistics (GET /rest/organizationalEntityShareStatistics?q=organizationalEntity
// &organizationalEntity={org}&shares=List({urn}) or ugcPosts=List(...) -> totalShareStatistics).
// Members' posts need r_member_social (LinkedIn grants it to approved apps only), organizations'
// r_organization_social, statistics rw_organization_admin on an organization the member
// administers; anything else is 403 as LinkedIn answers a missing permission.
import type { ServerResponse } from 'node:http';
import { PostNumbers } from './post-numbers.ts';

export const LINKEDIN_POST_NUMBERS = [
  'likes',
  'comments',
  'impressions',
  'uniqueImpressions',
  'clicks',
  'shares',
] as const;
export type LinkedinPostNumber = (typeof LINKEDIN_POST_NUMBERS)[number];

interface StatsError {
  status: number;
  code: string;
  serviceErrorCode?: number;
  message: string;
}

export interface LinkedinStatsDeps {
  /** The author of a post the fake knows (created through it, or declared by a test). */
  authorOf(urn: string): string | undefined;
  /** Whether the member administers this organization URN. */
  administers(organization: string): boolean;
  memberUrn(): string;
  refuse(response: ServerResponse, error: StatsError): void;
  answer(response: ServerResponse, status: number, body: unknown): void;
}

const denied = (message: string): StatsError => ({
  status: 403,
  serviceErrorCode: 100,
  code: 'ACCESS_DENIED',
  message: `Not enough permissions to access: ${message}`,
});

/** `List(urn%3Ali%3Ashare%3A1,...)` (Rest.li 2.0) -> the URNs; undefined when malformed. */
function listOf(value: string | null): string[] | undefined {
  const inner = value === null ? undefined : /^List\((.*)\)$/.exec(value)?.[1];
  if (inner === undefined) return undefined;
  return inner.split(',').filter(Boolean).map(decodeURIComponent);
}

export function createLinkedinStats(deps: LinkedinStatsDeps) {
  const numbers = new PostNumbers(LINKEDIN_POST_NUMBERS);
  const notFound = (urn: string): StatsError => ({
    status: 404,
    code: 'NOT_FOUND',
    message: `Post ${urn} does not exist`,
  });

  /** GET /rest/socialActions/{urn}: likes and comments of a post the token may read. */
  function socialActions(response: ServerResponse, urn: string, scopes: string[]) {
    const author = deps.authorOf(urn);
    if (author === undefined || numbers.isGone(urn)) return deps.refuse(response, notFound(urn));
    if (author.startsWith('urn:li:organization:')) {
      if (!deps.administers(author) || !scopes.includes('r_organization_social')) {
        return deps.refuse(response, denied('socialActions.GET (r_organization_social)'));
      }
    } else if (author !== deps.memberUrn() || !scopes.includes('r_member_social')) {
      return deps.refuse(response, denied('socialActions.GET (r_member_social)'));
    }
    const values = numbers.of(urn);
    const likes = values.likes ?? 0;
    const comments = values.comments ?? 0;
    deps.answer(response, 200, {
      $URN: `urn:li:socialActions:${urn}`,
      target: urn,
      likesSummary: { selectedLikedByCount: 0, totalLikes: likes, likedByCurrentUser: false },
      commentsSummary: {
        selectedCommentsCount: 0,
        totalFirstLevelComments: comments,
        aggregatedTotalComments: comments,
      },
    });
  }

  /** GET /rest/organizationalEntityShareStatistics: lifetime statistics of the listed posts. */
  function shareStatistics(response: ServerResponse, query: URLSearchParams, scopes: string[]) {
    const organization = query.get('organizationalEntity') ?? '';
    if (
      query.get('q') !== 'organizationalEntity' ||
      !organization.startsWith('urn:li:organization:')
    ) {
      return deps.refuse(response, {
        status: 400,
        code: 'ILLEGAL_ARGUMENT',
        message: 'fake: q=organizationalEntity&organizationalEntity={organization urn} is required',
      });
    }
    if (!scopes.includes('rw_organization_admin') || !deps.administers(organization)) {
      return deps.refuse(response, denied('organizationalEntityShareStatistics.FINDER'));
    }
    const shares = listOf(query.get('shares')) ?? [];
    const ugcPosts = listOf(query.get('ugcPosts')) ?? [];
    const misplaced =
      shares.some((urn) => !urn.startsWith('urn:li:share:')) ||
      ugcPosts.some((urn) => !urn.startsWith('urn:li:ugcPost:'));
    if (misplaced || (query.has('shares') && query.has('ugcPosts'))) {
      return deps.refuse(response, {
        status: 400,
        code: 'ILLEGAL_ARGUMENT',
        message: 'fake: shares=List(urn:li:share:…) or ugcPosts=List(urn:li:ugcPost:…), not both',
      });
    }
    const urns = [...shares, ...ugcPosts];
    if (urns.some((urn) => deps.authorOf(urn) !== organization)) {
      // What LinkedIn answers for a post that is not the organization's.
      return deps.refuse(response, {
        ...denied('organizationalEntityShareStatistics.FINDER'),
        message:
          'Unpermitted fields present in PARAMETER: Data Processing Exception while processing fields [/shares[0]]',
      });
    }
    const elements = urns
      .filter((urn) => !numbers.isGone(urn))
      .map((urn) => {
        const values = numbers.of(urn);
        const count = (name: LinkedinPostNumber) => values[name] ?? 0;
        return {
          organizationalEntity: organization,
          [urn.startsWith('urn:li:share:') ? 'share' : 'ugcPost']: urn,
          totalShareStatistics: {
            impressionCount: count('impressions'),
            uniqueImpressionsCount: count('uniqueImpressions'),
            clickCount: count('clicks'),
            shareCount: count('shares'),
            likeCount: count('likes'),
            commentCount: count('comments'),
            engagement: 0.05,
          },
        };
      });
    deps.answer(response, 200, { paging: { start: 0, count: 10, links: [] }, elements });
  }

  return { numbers, socialActions, shareStatistics };
}
