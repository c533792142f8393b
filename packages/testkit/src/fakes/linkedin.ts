// A local LinkedIn for the OAuth flow, on one base URL serving www.linkedin.com and
// api.linkedin.com: consent (/oauth/v2/authorization), tokens (/oauth/v2/accessToken, refresh
// tokens only when configured, as for approved apps), the member (/v2/userinfo, OpenID) and the
// organizations the member administers (/rest/organizationAcls, /rest/organizations/{id}, which
// demand a LinkedIn-Version header). Token errors `{ error, error_description }`; API errors
// `{ status, serviceErrorCode, code, message }`. Publishing: /rest/posts, /rest/images and
// /rest/videos (initializeUpload, finalizeUpload, status) with upload URLs served here too
// (bytes counted and checked against the media server's pattern, never kept); deletes of posts
// and comments in linkedin-deletes.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerToken,
  dropConnection,
  type FakeServer,
  listen,
  parseBody,
  type RecordedRequest,
  readBody,
  record,
  ScriptQueue,
  sendJson,
} from './http.ts';
import { createLinkedinComments } from './linkedin-comments.ts';
import { createLinkedinDeletes } from './linkedin-deletes.ts';
import { createLinkedinStats, type LinkedinPostNumber } from './linkedin-stats.ts';
import { matchesPattern } from './media-server.ts';
import { FakeOAuthProvider } from './oauth.ts';
import type { PostNumbers } from './post-numbers.ts';

export type { LinkedinPostNumber };

export interface LinkedinApiError {
  status: number;
  code: string;
  serviceErrorCode?: number;
  message: string;
}

/** Documented/commonly reported API errors. */
export const LINKEDIN_ERRORS = {
  invalidToken: {
    status: 401,
    serviceErrorCode: 65600,
    code: 'INVALID_ACCESS_TOKEN',
    message: 'Invalid access token',
  },
  revokedToken: {
    status: 401,
    serviceErrorCode: 65601,
    code: 'REVOKED_ACCESS_TOKEN',
    message: 'The token used in the request has been revoked by the user',
  },
  accessDenied: {
    status: 403,
    serviceErrorCode: 100,
    code: 'ACCESS_DENIED',
    message: 'Not enough permissions to access this resource',
  },
  /** Unconfirmed: the exact answer LinkedIn gives a /rest call without LinkedIn-Version. */
  versionMissing: {
    status: 400,
    code: 'VERSION_MISSING',
    message:
      'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
  },
  serverError: { status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal Server Error' },
  throttled: { status: 429, code: 'TOO_MANY_REQUESTS', message: 'Resource level throttle limit' },
} as const satisfies Record<string, LinkedinApiError>;

export interface LinkedinMember {
  sub: string;
  name: string;
  given_name: string;
  family_name: string;
  picture: string;
  email?: string;
}

export interface LinkedinOrganization {
  id: string;
  localizedName: string;
  vanityName: string;
  /** The member's role (default ADMINISTRATOR) and its state (default APPROVED). */
  role?: string;
  state?: string;
}

/** Which call a script entry applies to. */
export interface LinkedinComment {
  /** urn:li:comment:({post urn},{id}) */
  urn: string;
  /** The post commented on. */
  object: string;
  actor: string;
  text: string;
  /** The comment it answers (a reply; linkedin-comments.ts). */
  parent?: string;
  /** Epoch ms. */
  createdAt?: number;
}

export type LinkedinCall =
  | 'token'
  | 'userinfo'
  | 'acls'
  | 'organization'
  /** POST /rest/posts */
  | 'post'
  /** POST /rest/images?action=initializeUpload */
  | 'imageInit'
  /** POST /rest/videos?action=initializeUpload */
  | 'videoInit'
  /** POST /rest/videos?action=finalizeUpload */
  | 'videoFinalize'
  /** GET /rest/videos/{urn} */
  | 'videoStatus'
  /** POST /rest/socialActions/{urn}/comments */
  | 'comment'
  /** GET /rest/socialActions/{urn} (a post's likes and comments) */
  | 'socialActions'
  /** DELETE /rest/posts/{urn} */
  | 'postDelete'
  /** DELETE /rest/socialActions/{urn}/comments/{id} */
  | 'commentDelete'
  /** GET /rest/organizationalEntityShareStatistics */
  | 'shareStatistics'
  /** PUT to an upload URL (image or video part) */
  | 'upload'
  | 'any';

export type LinkedinScript =
  /**
   * The next `times` matching API calls answer this error (with `Retry-After:
   * retryAfterSeconds` when given).
   */
  (
    | { error: LinkedinApiError; on?: LinkedinCall; times?: number; retryAfterSeconds?: number }
    /** The next `times` matching calls get their connection dropped without an answer. */
    | { drop: true; on?: LinkedinCall; times?: number }
  ) & {
    /** Only calls to this path (as sent, URNs encoded), e.g. one comment's replies. */
    path?: string;
  };

export interface FakeLinkedinOptions {
  /** The app's client id and secret (default linkedin-client-id / linkedin-client-secret). */
  oauth?: { clientId: string; clientSecret: string };
  /** Whether tokens come with a refresh token (programmatic refresh: approved apps). Default false. */
  refreshTokens?: boolean;
  /**
   * The scopes the app's products allow; a consent asking for any other one comes back with
   * `error=unauthorized_scope_error`. Default: OpenID, Share on LinkedIn and Community Management.
   */
  authorizedScopes?: string[];
  member?: Partial<LinkedinMember>;
  organizations?: LinkedinOrganization[];
  /** LinkedIn-Version values answered 426 NONEXISTENT_VERSION (retired). */
  retiredVersions?: string[];
  /** Size of each video upload part (default 4 MiB, as LinkedIn). */
  videoPartBytes?: number;
  /** Status GETs of a finalized video answering PROCESSING before AVAILABLE (default 1). */
  processingPolls?: number;
  /** Posts one member may create per (fake) day, organizations' included; more answer 429. */
  dailyPostLimit?: number;
}

/** A post the fake accepted (the request body as sent). */
export interface LinkedinPost {
  urn: string;
  author: string;
  commentary: string;
  body: Record<string, unknown>;
  /** Epoch ms, as LinkedIn's `createdAt`. */
  createdAt: number;
}

export interface LinkedinImage {
  urn: string;
  owner: string;
  uploadUrl: string;
  /** Bytes received by the last complete PUT; null before it. */
  uploadedBytes: number | null;
  /** Whether every byte matched the media server's pattern. */
  patternOk: boolean;
}

export interface LinkedinVideoPart {
  uploadUrl: string;
  firstByte: number;
  lastByte: number;
  /** The ETag answered to the last complete PUT of this part; null before it. */
  etag: string | null;
}

export interface LinkedinVideo {
  urn: string;
  owner: string;
  fileSizeBytes: number;
  uploadToken: string;
  parts: LinkedinVideoPart[];
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** Status GETs answered while PROCESSING. */
  polls: number;
  patternOk: boolean;
}

/** One PUT to an upload URL that received its whole body. */
export interface LinkedinUpload {
  kind: 'image' | 'video';
  urn: string;
  /** The part index (videos). */
  part?: number;
  bytes: number;
}

export interface FakeLinkedin extends FakeServer {
  script(step: LinkedinScript): void;
  /** The consent and tokens: script denials, refusals and revocations here. */
  oauth: FakeOAuthProvider;
  member: LinkedinMember;
  /** The organizations /rest/organizationAcls knows for the member (edit freely). */
  organizations: LinkedinOrganization[];
  authorizedScopes: string[];
  /** Further API calls with this access token answer 401 REVOKED_ACCESS_TOKEN. */
  revokeAccessToken(token: string): void;
  /** Posts created, in order. */
  posts: LinkedinPost[];
  /** Comments made with POST /rest/socialActions/{urn}/comments, in order. */
  comments: LinkedinComment[];
  /** Someone else comments on a post, or answers a comment (linkedin-comments.ts). */
  addComment(objectUrn: string, text: string): LinkedinComment;
  images: LinkedinImage[];
  videos: LinkedinVideo[];
  /** Completed PUTs to upload URLs, in order (the upload counter). */
  uploads: LinkedinUpload[];
  /** PROCESSING polls of videos finalized from now on. */
  processingPolls: number;
  /** Posts per member per day (undefined: no limit); past it POST /rest/posts answers 429. */
  dailyPostLimit: number | undefined;
  /**
   * What socialActions and share statistics answer per post URN (likes, comments, impressions,
   * uniqueImpressions, clicks, shares): `set` (null reads as 0, as LinkedIn counts), `remove`
   * (the post is gone: 404). Posts created here, or declared in `postAuthors`, exist.
   */
  postNumbers: PostNumbers<LinkedinPostNumber>;
  /** Authors of posts the tests declare (URN -> person or organization URN). */
  postAuthors: Map<string, string>;
}

/** Seconds an access token lives (60 days), and a refresh token (365 days). */
export const LINKEDIN_ACCESS_EXPIRES_IN = 5_184_000;
export const LINKEDIN_REFRESH_EXPIRES_IN = 31_536_000;

/** Upload URLs the fake hands out (LinkedIn's are on www.linkedin.com/dms-uploads/...). */
const UPLOAD_PREFIX = '/dms-uploads/';

const callOf = (path: string, query: Record<string, string> = {}): LinkedinCall | 'other' => {
  if (path === '/oauth/v2/accessToken') return 'token';
  if (path === '/v2/userinfo') return 'userinfo';
  if (path === '/rest/organizationAcls') return 'acls';
  if (/^\/rest\/organizations\/[^/]+$/.test(path)) return 'organization';
  if (path === '/rest/posts') return 'post';
  if (/^\/rest\/posts\/[^/]+$/.test(path)) return 'postDelete';
  if (/^\/rest\/socialActions\/[^/]+\/comments\/[^/]+$/.test(path)) return 'commentDelete';
  if (path === '/rest/images' && query.action === 'initializeUpload') return 'imageInit';
  if (path === '/rest/videos' && query.action === 'initializeUpload') return 'videoInit';
  if (path === '/rest/videos' && query.action === 'finalizeUpload') return 'videoFinalize';
  if (/^\/rest\/videos\/[^/]+$/.test(path)) return 'videoStatus';
  if (/^\/rest\/socialActions\/[^/]+\/comments$/.test(path)) return 'comment';
  if (/^\/rest\/socialActions\/[^/]+$/.test(path)) return 'socialActions';
  if (path === '/rest/organizationalEntityShareStatistics') return 'shareStatistics';
  if (path.startsWith(UPLOAD_PREFIX)) return 'upload';
  return 'other';
};

const PUBLISHING_CALLS = new Set<LinkedinCall | 'other'>([
  'post',
  'comment',
  'postDelete',
  'commentDelete',
  'imageInit',
  'videoInit',
  'videoFinalize',
  'videoStatus',
]);

/** The ADMINISTRATOR-like roles that may post as an organization. */
const POSTING_ROLES = new Set([
  'ADMINISTRATOR',
  'CONTENT_ADMINISTRATOR',
  'DIRECT_SPONSORED_CONTENT_POSTER',
]);

export async function startFakeLinkedin(options: FakeLinkedinOptions = {}): Promise<FakeLinkedin> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<LinkedinScript>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'linkedin-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'linkedin-client-secret',
    pkce: 'none',
    accessTokenTtlSeconds: LINKEDIN_ACCESS_EXPIRES_IN,
    issueRefreshTokens: options.refreshTokens ?? false,
  });
  const authorizedScopes = options.authorizedScopes ?? [
    'openid',
    'profile',
    'email',
    'w_member_social',
    'w_organization_social',
    'rw_organization_admin',
    'r_organization_social',
  ];
  const member: LinkedinMember = {
    sub: 'fAkEmEmBeR1',
    name: 'Fake Member',
    given_name: 'Fake',
    family_name: 'Member',
    picture: 'https://media.licdn.com/dms/image/fake/profile.jpg',
    email: 'fake.member@example.com',
    ...options.member,
  };
  const organizations: LinkedinOrganization[] = options.organizations ?? [
    { id: '2414183', localizedName: 'Fake Company', vanityName: 'fake-company' },
  ];
  const revoked = new Set<string>();
  const posts: LinkedinPost[] = [];
  const comments: LinkedinComment[] = [];
  const images: LinkedinImage[] = [];
  const videos: LinkedinVideo[] = [];
  const uploads: LinkedinUpload[] = [];
  /** Per video: the PROCESSING polls it answers (set at finalize). */
  const pollsOf = new Map<string, number>();
  const partBytes = options.videoPartBytes ?? 4 * 1024 * 1024;
  let counter = 0;
  let baseUrl = '';

  const apiError = (
    response: ServerResponse,
    error: LinkedinApiError,
    headers: Record<string, string> = {},
  ) =>
    sendJson(
      response,
      error.status,
      {
        status: error.status,
        ...(error.serviceErrorCode === undefined
          ? {}
          : { serviceErrorCode: error.serviceErrorCode }),
        code: error.code,
        message: error.message,
      },
      headers,
    );
  const oauthError = (
    response: ServerResponse,
    status: number,
    error: string,
    description: string,
  ) => sendJson(response, status, { error, error_description: description });

  /** The scopes of a live access token, or the error to answer. */
  function scopesOf(token: string | undefined): string[] | LinkedinApiError {
    if (token === undefined) return LINKEDIN_ERRORS.invalidToken;
    if (revoked.has(token)) return LINKEDIN_ERRORS.revokedToken;
    if (!oauth.isValidAccessToken(token)) return LINKEDIN_ERRORS.invalidToken;
    return oauth.issued.find((issued) => issued.accessToken === token)?.scopes ?? [];
  }

  /** The version error of a /rest call, if any. */
  function versionError(request: IncomingMessage): LinkedinApiError | undefined {
    const version = request.headers['linkedin-version'];
    if (typeof version !== 'string' || version === '') return LINKEDIN_ERRORS.versionMissing;
    if (!/^\d{6}(\.\d{2})?$/.test(version) || options.retiredVersions?.includes(version)) {
      return {
        status: 426,
        code: 'NONEXISTENT_VERSION',
        message: `Requested version ${version} is not active`,
      };
    }
    return undefined;
  }

  const postAuthors = new Map<string, string>();
  const administers = (author: string) => {
    const id = /^urn:li:organization:(\d+)$/.exec(author)?.[1];
    const organization = organizations.find((o) => o.id === id);
    return (
      organization !== undefined &&
      (organization.state ?? 'APPROVED') === 'APPROVED' &&
      POSTING_ROLES.has(organization.role ?? 'ADMINISTRATOR')
    );
  };
  const stats = createLinkedinStats({
    authorOf: (urn) => posts.find((post) => post.urn === urn)?.author ?? postAuthors.get(urn),
    administers,
    memberUrn: () => `urn:li:person:${member.sub}`,
    refuse: (response, error) => apiError(response, error),
    answer: sendJson,
  });

  /** The reading calls: versioned headers, a live token, then the stats' own checks. */
  function reading(request: IncomingMessage, response: ServerResponse, url: URL, call: string) {
    const refused = versionError(request);
    if (refused) return apiError(response, refused);
    if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
      return apiError(response, {
        status: 400,
        code: 'ILLEGAL_ARGUMENT',
        message: 'fake: X-Restli-Protocol-Version: 2.0.0 is required',
      });
    }
    const scopes = publishingScopes(bearerToken(request.headers));
    if (!Array.isArray(scopes)) return apiError(response, scopes);
    if (call === 'shareStatistics')
      return stats.shareStatistics(response, url.searchParams, scopes);
    const urn = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    return stats.socialActions(response, urn, scopes);
  }

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    if (url.pathname.startsWith(UPLOAD_PREFIX)) return upload(request, response, url);
    const raw = await readBody(request);
    const body = parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;

    if (url.pathname === '/oauth/v2/authorization' && request.method === 'GET') {
      return authorize(response, url);
    }
    const scripted = scripts.take(recorded, (a) => 'error' in a || 'drop' in a);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    const call = callOf(url.pathname, recorded.query);
    if (scripted && 'error' in scripted) {
      if (call !== 'token') return apiError(response, scripted.error, retryAfter(scripted));
      const { status, code, message } = scripted.error;
      return oauthError(response, status, code, message);
    }

    if (call === 'token' && request.method === 'POST') return token(response, form);
    if (PUBLISHING_CALLS.has(call)) return publishing(request, response, url, call, body);
    if ((call === 'socialActions' || call === 'shareStatistics') && request.method === 'GET') {
      return reading(request, response, url, call);
    }
    if (request.method !== 'GET' || call === 'other' || call === 'token') {
      return apiError(response, {
        status: 404,
        code: 'NOT_FOUND',
        message: `No virtual resource found for ${request.method} ${url.pathname}`,
      });
    }
    if (url.pathname.startsWith('/rest/')) {
      const refused = versionError(request);
      if (refused) return apiError(response, refused);
    }
    const scopes = scopesOf(bearerToken(request.headers));
    if (!Array.isArray(scopes)) return apiError(response, scopes);

    if (call === 'userinfo') {
      if (!scopes.includes('openid')) {
        return apiError(response, {
          ...LINKEDIN_ERRORS.accessDenied,
          message: 'Not enough permissions to access: userinfo.GET.NO_VERSION',
        });
      }
      const { email, ...profile } = member;
      return sendJson(response, 200, {
        ...profile,
        locale: { country: 'US', language: 'en' },
        ...(scopes.includes('email') && email ? { email, email_verified: true } : {}),
      });
    }
    const canReadOrganizations =
      scopes.includes('rw_organization_admin') || scopes.includes('r_organization_admin');
    if (!canReadOrganizations) {
      return apiError(response, {
        ...LINKEDIN_ERRORS.accessDenied,
        message: `Not enough permissions to access: ${call === 'acls' ? 'organizationAcls.FINDER-roleAssignee' : 'organizations.GET'}`,
      });
    }
    if (call === 'acls') return acls(response, url);
    const id = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const organization = organizations.find((o) => o.id === id);
    if (!organization) {
      return apiError(response, {
        status: 404,
        code: 'NOT_FOUND',
        message: `Organization ${id} does not exist`,
      });
    }
    return sendJson(response, 200, {
      id: Number(organization.id),
      localizedName: organization.localizedName,
      vanityName: organization.vanityName,
      name: {
        localized: { en_US: organization.localizedName },
        preferredLocale: { country: 'US', language: 'en' },
      },
    });
  }

  /** GET /oauth/v2/authorization: consents at once, redirecting back with `code` (or `error`). */
  function authorize(response: ServerResponse, url: URL) {
    const q = url.searchParams;
    if (q.get('response_type') !== 'code') {
      return oauthError(response, 400, 'invalid_request', 'response_type must be code');
    }
    const scopes = (q.get('scope') ?? '').split(/[\s,]+/).filter(Boolean);
    const unauthorized = scopes.find((scope) => !authorizedScopes.includes(scope));
    const redirectUri = q.get('redirect_uri');
    if (unauthorized && q.get('client_id') === oauth.options.clientId && redirectUri) {
      const back = new URL(redirectUri);
      back.searchParams.set('error', 'unauthorized_scope_error');
      back.searchParams.set(
        'error_description',
        `Scope "${unauthorized}" is not authorized for your application`,
      );
      const state = q.get('state');
      if (state !== null) back.searchParams.set('state', state);
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }
    const answer = oauth.authorize({
      clientId: q.get('client_id') ?? undefined,
      redirectUri: redirectUri ?? undefined,
      state: q.get('state') ?? undefined,
      scope: scopes.join(' '),
    });
    if ('redirect' in answer) {
      response.writeHead(302, { location: answer.redirect }).end();
      return;
    }
    oauthError(response, answer.status, 'invalid_request', answer.error);
  }

  /** POST /oauth/v2/accessToken (form): authorization_code or refresh_token. */
  function token(response: ServerResponse, form: Record<string, string>) {
    const client = { clientId: form.client_id, clientSecret: form.client_secret };
    let answer: ReturnType<FakeOAuthProvider['exchangeCode']>;
    if (form.grant_type === 'authorization_code') {
      if (!form.code) {
        return oauthError(
          response,
          400,
          'invalid_request',
          'A required parameter "code" is missing',
        );
      }
      answer = oauth.exchangeCode({ code: form.code, redirectUri: form.redirect_uri, ...client });
      if (!answer.ok && answer.error === 'invalid_grant') {
        // LinkedIn answers a bad, used or expired code like this.
        return oauthError(
          response,
          400,
          'invalid_request',
          'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists',
        );
      }
    } else if (form.grant_type === 'refresh_token') {
      if (!form.refresh_token) {
        return oauthError(
          response,
          400,
          'invalid_request',
          'A required parameter "refresh_token" is missing',
        );
      }
      answer = oauth.refresh({ refreshToken: form.refresh_token, ...client });
    } else {
      return oauthError(response, 400, 'unsupported_grant_type', 'grant_type is not supported');
    }
    if (!answer.ok) return oauthError(response, answer.status, answer.error, answer.description);
    // Without rotation the provider answers no new refresh token: LinkedIn repeats the same one.
    const refreshToken =
      answer.tokens.refreshToken ??
      (form.grant_type === 'refresh_token' ? form.refresh_token : null);
    sendJson(response, 200, {
      access_token: answer.tokens.accessToken,
      expires_in: answer.tokens.expiresIn,
      ...(refreshToken
        ? { refresh_token: refreshToken, refresh_token_expires_in: LINKEDIN_REFRESH_EXPIRES_IN }
        : {}),
      // LinkedIn lists the granted scopes comma-separated.
      scope: answer.tokens.scopes.join(','),
      token_type: 'Bearer',
    });
  }

  /** GET /rest/organizationAcls?q=roleAssignee&role=&state=&start=&count= */
  function acls(response: ServerResponse, url: URL) {
    const q = url.searchParams;
    if (q.get('q') !== 'roleAssignee') {
      return apiError(response, {
        status: 400,
        code: 'ILLEGAL_ARGUMENT',
        message: 'Invalid finder: q must be roleAssignee',
      });
    }
    const role = q.get('role');
    const state = q.get('state');
    const matching = organizations.filter(
      (o) =>
        (role === null || (o.role ?? 'ADMINISTRATOR') === role) &&
        (state === null || (o.state ?? 'APPROVED') === state),
    );
    const start = Number(q.get('start') ?? 0) || 0;
    const count = Number(q.get('count') ?? 10) || 10;
    const slice = matching.slice(start, start + count);
    sendJson(response, 200, {
      paging: { start, count, links: [], total: matching.length },
      elements: slice.map((o) => ({
        roleAssignee: `urn:li:person:${member.sub}`,
        state: o.state ?? 'APPROVED',
        role: o.role ?? 'ADMINISTRATOR',
        organization: `urn:li:organization:${o.id}`,
      })),
    });
  }

  /** A publishing token: any token not revoked (the fake's own must still be valid). */
  function publishingScopes(token: string | undefined): string[] | LinkedinApiError {
    if (token === undefined) return LINKEDIN_ERRORS.invalidToken;
    if (revoked.has(token)) return LINKEDIN_ERRORS.revokedToken;
    const issued = oauth.issued.find((candidate) => candidate.accessToken === token);
    if (!issued) return authorizedScopes; // tokens the tests bring along: the member's
    if (!oauth.isValidAccessToken(token)) return LINKEDIN_ERRORS.invalidToken;
    return issued.scopes;
  }

  /** Why the token's member may not act as `author` (undefined: it may). */
  function authorRefusal(
    author: unknown,
    scopes: string[],
    resource: string,
  ): LinkedinApiError | undefined {
    const denied = (why: string): LinkedinApiError => ({
      ...LINKEDIN_ERRORS.accessDenied,
      message: `Not enough permissions to access: ${resource} (${why})`,
    });
    if (typeof author !== 'string') {
      return {
        status: 422,
        code: 'UNPROCESSABLE_ENTITY',
        message: 'ERROR :: /author :: field is required but not found and has no default value',
      };
    }
    if (author.startsWith('urn:li:person:')) {
      if (author !== `urn:li:person:${member.sub}`) return denied(`${author} is not the member`);
      if (!scopes.includes('w_member_social')) return denied('w_member_social not granted');
      return undefined;
    }
    const id = /^urn:li:organization:(\d+)$/.exec(author)?.[1];
    if (id === undefined) {
      return {
        status: 422,
        code: 'UNPROCESSABLE_ENTITY',
        message: `ERROR :: /author :: "${author}" is not a person or organization URN`,
      };
    }
    const organization = organizations.find((o) => o.id === id);
    const administers =
      organization !== undefined &&
      POSTING_ROLES.has(organization.role ?? 'ADMINISTRATOR') &&
      (organization.state ?? 'APPROVED') === 'APPROVED';
    if (!administers) return denied(`the member does not administer ${author}`);
    if (!scopes.includes('w_organization_social'))
      return denied('w_organization_social not granted');
    return undefined;
  }

  const invalid = (response: ServerResponse, message: string) =>
    apiError(response, { status: 422, code: 'UNPROCESSABLE_ENTITY', message });
  const deletes = createLinkedinDeletes({
    posts,
    comments,
    numbers: stats.numbers,
    authorRefusal,
    refuse: (response, error) => apiError(response, error),
  });

  const threads = createLinkedinComments<LinkedinComment>({
    comments,
    posts,
    asComment: (fields) => fields,
    nextId: () => {
      counter += 1;
      return String(7_400_000_000_000_000_000n + BigInt(counter));
    },
    authorRefusal,
    refuse: (response, error) => apiError(response, error),
  });

  async function publishing(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    call: LinkedinCall | 'other',
    rawBody: unknown,
  ) {
    const refused = versionError(request);
    if (refused) return apiError(response, refused);
    if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
      return apiError(response, {
        status: 400,
        code: 'ILLEGAL_ARGUMENT',
        message: 'fake: X-Restli-Protocol-Version: 2.0.0 is required',
      });
    }
    const scopes = publishingScopes(bearerToken(request.headers));
    if (!Array.isArray(scopes)) return apiError(response, scopes);
    const body = (typeof rawBody === 'object' && rawBody !== null ? rawBody : {}) as Record<
      string,
      unknown
    >;
    const version = String(request.headers['linkedin-version']);
    if (call === 'post' && request.method === 'POST')
      return createPost(response, body, scopes, version);
    if (call === 'post' && request.method === 'GET') return listPosts(response, url, scopes);
    if (call === 'postDelete' && request.method === 'DELETE') {
      return deletes.removePost(response, url, scopes);
    }
    if (call === 'commentDelete' && request.method === 'DELETE') {
      return deletes.removeComment(response, url, scopes);
    }
    if (threads.handle(response, request.method ?? 'GET', url, body, scopes)) return;
    if (call === 'comment' && request.method === 'POST') {
      return createComment(response, url, body, scopes);
    }
    if (call === 'imageInit' && request.method === 'POST') {
      const init = (body.initializeUploadRequest ?? {}) as Record<string, unknown>;
      const denied = authorRefusal(init.owner, scopes, 'images.ACTION-initializeUpload');
      if (denied) return apiError(response, denied);
      counter += 1;
      const image: LinkedinImage = {
        urn: `urn:li:image:D4E10AQFake${String(counter).padStart(6, '0')}`,
        owner: String(init.owner),
        uploadUrl: `${baseUrl}${UPLOAD_PREFIX}image-${counter}`,
        uploadedBytes: null,
        patternOk: true,
      };
      images.push(image);
      return sendJson(response, 200, {
        value: {
          uploadUrlExpiresAt: Date.now() + 86_400_000,
          uploadUrl: image.uploadUrl,
          image: image.urn,
        },
      });
    }
    if (call === 'videoInit' && request.method === 'POST') {
      const init = (body.initializeUploadRequest ?? {}) as Record<string, unknown>;
      const denied = authorRefusal(init.owner, scopes, 'videos.ACTION-initializeUpload');
      if (denied) return apiError(response, denied);
      const size = init.fileSizeBytes;
      if (typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0) {
        return invalid(
          response,
          'ERROR :: /initializeUploadRequest/fileSizeBytes :: must be a positive long',
        );
      }
      counter += 1;
      const id = counter;
      const parts: LinkedinVideoPart[] = [];
      for (let first = 0, index = 0; first < size; first += partBytes, index += 1) {
        parts.push({
          uploadUrl: `${baseUrl}${UPLOAD_PREFIX}video-${id}-part-${index}`,
          firstByte: first,
          lastByte: Math.min(first + partBytes, size) - 1,
          etag: null,
        });
      }
      const video: LinkedinVideo = {
        urn: `urn:li:video:D5F10AQFake${String(id).padStart(6, '0')}`,
        owner: String(init.owner),
        fileSizeBytes: size,
        uploadToken: `upload-token-${id}`,
        parts,
        status: 'WAITING_UPLOAD',
        polls: 0,
        patternOk: true,
      };
      videos.push(video);
      return sendJson(response, 200, {
        value: {
          uploadUrlsExpireAt: Date.now() + 86_400_000,
          video: video.urn,
          uploadInstructions: parts.map(({ uploadUrl, firstByte, lastByte }) => ({
            uploadUrl,
            lastByte,
            firstByte,
          })),
          uploadToken: video.uploadToken,
        },
      });
    }
    if (call === 'videoFinalize' && request.method === 'POST') {
      const finalize = (body.finalizeUploadRequest ?? {}) as Record<string, unknown>;
      const video = videos.find((v) => v.urn === finalize.video);
      if (!video)
        return apiError(response, {
          status: 404,
          code: 'NOT_FOUND',
          message: `Video ${String(finalize.video)} does not exist`,
        });
      const denied = authorRefusal(video.owner, scopes, 'videos.ACTION-finalizeUpload');
      if (denied) return apiError(response, denied);
      if (finalize.uploadToken !== video.uploadToken) {
        return apiError(response, {
          status: 400,
          code: 'ILLEGAL_ARGUMENT',
          message: 'Invalid upload token',
        });
      }
      const etags = video.parts.map((part) => part.etag);
      const sent = Array.isArray(finalize.uploadedPartIds) ? finalize.uploadedPartIds : [];
      if (etags.includes(null) || JSON.stringify(sent) !== JSON.stringify(etags)) {
        return apiError(response, {
          status: 400,
          code: 'ILLEGAL_ARGUMENT',
          message: `fake: uploadedPartIds ${JSON.stringify(sent)} do not match the uploaded parts ${JSON.stringify(etags)}`,
        });
      }
      if (video.status === 'WAITING_UPLOAD') {
        const polls = fake.processingPolls;
        pollsOf.set(video.urn, polls);
        video.status = polls > 0 ? 'PROCESSING' : 'AVAILABLE';
      }
      response.writeHead(200, { 'content-length': '0' }).end();
      return;
    }
    if (call === 'videoStatus' && request.method === 'GET') {
      const urn = decodeURIComponent(url.pathname.split('/').pop() ?? '');
      const video = videos.find((v) => v.urn === urn);
      if (!video)
        return apiError(response, {
          status: 404,
          code: 'NOT_FOUND',
          message: `Video ${urn} does not exist`,
        });
      if (video.status === 'PROCESSING') {
        video.polls += 1;
        if (video.polls > (pollsOf.get(urn) ?? 0)) video.status = 'AVAILABLE';
      }
      return sendJson(response, 200, {
        id: video.urn,
        owner: video.owner,
        status: video.status,
        ...(video.status === 'AVAILABLE'
          ? { duration: 12_000, aspectRatioWidth: 16, aspectRatioHeight: 9 }
          : {}),
      });
    }
    return apiError(response, {
      status: 404,
      code: 'NOT_FOUND',
      message: `No virtual resource found for ${request.method} ${url.pathname}`,
    });
  }

  function createPost(
    response: ServerResponse,
    body: Record<string, unknown>,
    scopes: string[],
    version: string,
  ) {
    const denied = authorRefusal(
      body.author,
      scopes,
      `partnerApiPostsExternal.CREATE.${version}01`,
    );
    if (denied) return apiError(response, denied);
    const author = String(body.author);
    const commentary = body.commentary;
    if (typeof commentary !== 'string')
      return invalid(
        response,
        'ERROR :: /commentary :: field is required but not found and has no default value',
      );
    if (Array.from(commentary).length > 3000)
      return invalid(response, 'ERROR :: /commentary :: length of commentary exceeds 3000');
    if (body.lifecycleState !== 'PUBLISHED')
      return invalid(response, 'ERROR :: /lifecycleState :: fake: only PUBLISHED is supported');
    const distribution = body.distribution as Record<string, unknown> | undefined;
    if (body.visibility !== 'PUBLIC' || distribution?.feedDistribution !== 'MAIN_FEED') {
      return invalid(response, 'ERROR :: /distribution :: fake: PUBLIC on MAIN_FEED expected');
    }
    const content = body.content as Record<string, unknown> | undefined;
    if (content !== undefined) {
      const media = content.media as { id?: unknown } | undefined;
      const multi = content.multiImage as { images?: unknown } | undefined;
      const ids: unknown[] = media
        ? [media.id]
        : Array.isArray(multi?.images)
          ? multi.images.map((i) => (i as { id?: unknown }).id)
          : [];
      if (multi && (ids.length < 2 || ids.length > 20))
        return invalid(
          response,
          'ERROR :: /content/multiImage/images :: between 2 and 20 images are required',
        );
      if (ids.length === 0)
        return invalid(
          response,
          'ERROR :: /content :: fake: media.id or multiImage.images expected',
        );
      for (const id of ids) {
        const image = images.find((i) => i.urn === id);
        const video = videos.find((v) => v.urn === id);
        if (multi && !image)
          return invalid(response, `ERROR :: /content/multiImage :: ${String(id)} is not an image`);
        const owner = image?.owner ?? video?.owner;
        if (owner === undefined)
          return invalid(response, `ERROR :: /content :: ${String(id)} does not exist`);
        if (owner !== author)
          return invalid(response, `ERROR :: /content :: ${String(id)} is not owned by ${author}`);
        if (image && image.uploadedBytes === null)
          return invalid(response, `ERROR :: /content :: ${image.urn} was not uploaded`);
        if (video && video.status !== 'AVAILABLE')
          return invalid(response, `ERROR :: /content :: ${video.urn} is ${video.status}`);
      }
    }
    const limit = fake.dailyPostLimit;
    if (limit !== undefined && posts.length >= limit) {
      return apiError(response, {
        status: 429,
        code: 'TOO_MANY_REQUESTS',
        message: 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.',
      });
    }
    const duplicate = posts.find((p) => p.author === author && p.commentary === commentary);
    if (duplicate) {
      // As LinkedIn answers it (reported verbatim in public issues): no `code`, an input error.
      return sendJson(response, 422, {
        errorDetailType: 'com.linkedin.common.error.BadRequest',
        message: `com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of ${duplicate.urn}`,
        errorDetails: {
          inputErrors: [
            { description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' },
          ],
        },
        status: 422,
      });
    }
    counter += 1;
    const urn = `urn:li:share:${7_300_000_000_000_000_000n + BigInt(counter)}`;
    posts.push({ urn, author, commentary, body, createdAt: Date.now() });
    response
      .writeHead(201, { 'x-restli-id': urn, 'x-linkedin-id': urn, 'content-length': '0' })
      .end();
  }

  /** As the post's author, on a post that exists: `{ actor, object, message: { text } }`. */
  function createComment(
    response: ServerResponse,
    url: URL,
    body: Record<string, unknown>,
    scopes: string[],
  ) {
    const object = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    const denied = authorRefusal(body.actor, scopes, 'socialActions.comments.CREATE');
    if (denied) return apiError(response, denied);
    const text = (body.message as Record<string, unknown> | undefined)?.text;
    if (typeof text !== 'string' || text === '')
      return invalid(response, 'ERROR :: /message/text :: field is required but not found');
    if (body.object !== undefined && body.object !== object)
      return invalid(response, 'ERROR :: /object :: does not match the path');
    if (!posts.some((post) => post.urn === object)) {
      return apiError(response, { status: 404, code: 'NOT_FOUND', message: `${object} not found` });
    }
    counter += 1;
    const id = String(7_400_000_000_000_000_000n + BigInt(counter));
    const urn = `urn:li:comment:(${object},${id})`;
    comments.push({ urn, object, actor: String(body.actor), text });
    sendJson(
      response,
      201,
      { id, $URN: urn, actor: body.actor, object, message: { text } },
      {
        'x-restli-id': urn,
      },
    );
  }

  /**
   * GET /rest/posts?q=author&author={urn}&count=N&sortBy=LAST_MODIFIED: the author's posts,
   * newest first. Reading needs r_member_social (members) or r_organization_social (pages),
   * restricted permissions many apps lack: without them, 403 as for any missing permission.
   */
  function listPosts(response: ServerResponse, url: URL, scopes: string[]) {
    const author = url.searchParams.get('author') ?? '';
    if (url.searchParams.get('q') !== 'author' || author === '') {
      return apiError(response, {
        status: 400,
        code: 'ILLEGAL_ARGUMENT',
        message: 'fake: q=author&author= is required',
      });
    }
    const needed = author.startsWith('urn:li:person:')
      ? 'r_member_social'
      : 'r_organization_social';
    if (!scopes.includes(needed)) {
      return apiError(response, {
        ...LINKEDIN_ERRORS.accessDenied,
        message: `Not enough permissions to access: posts.FINDER-author (${needed} not granted)`,
      });
    }
    const count = Math.min(100, Number(url.searchParams.get('count') ?? 10) || 10);
    const elements = posts
      .filter((post) => post.author === author)
      .reverse()
      .slice(0, count)
      .map((post) => ({
        id: post.urn,
        author: post.author,
        commentary: post.commentary,
        createdAt: post.createdAt,
        lastModifiedAt: post.createdAt,
        lifecycleState: 'PUBLISHED',
        visibility: 'PUBLIC',
      }));
    return sendJson(response, 200, { paging: { start: 0, count, links: [] }, elements });
  }

  /** PUT to an upload URL: bytes counted and pattern-checked, never kept. */
  function upload(request: IncomingMessage, response: ServerResponse, url: URL) {
    const bytes = { bytes: 0 };
    const recorded = record(request, url, bytes);
    requests.push(recorded);
    const reject = (send: () => void) => {
      request.resume(); // discard the body
      request.on('end', send);
    };
    const scripted = scripts.take(recorded, (a) => 'error' in a || 'drop' in a);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) {
      const step = scripted;
      return reject(() => apiError(response, step.error, retryAfter(step)));
    }
    const name = url.pathname.slice(UPLOAD_PREFIX.length);
    const image = images.find((i) => i.uploadUrl.endsWith(`${UPLOAD_PREFIX}${name}`));
    const video = videos.find((v) =>
      v.parts.some((p) => p.uploadUrl.endsWith(`${UPLOAD_PREFIX}${name}`)),
    );
    const partIndex = video
      ? video.parts.findIndex((p) => p.uploadUrl.endsWith(`${UPLOAD_PREFIX}${name}`))
      : -1;
    const part = video?.parts[partIndex];
    if (request.method !== 'PUT' || (!image && !part)) {
      return reject(() =>
        apiError(response, {
          status: 404,
          code: 'NOT_FOUND',
          message: `No upload at ${url.pathname}`,
        }),
      );
    }
    const base = part ? part.firstByte : 0;
    let patternOk = true;
    request.on('data', (chunk: Buffer) => {
      if (!matchesPattern(chunk, base + bytes.bytes)) patternOk = false;
      bytes.bytes += chunk.length;
    });
    request.on('end', () => {
      if (image) {
        if (bytes.bytes === 0)
          return apiError(response, { status: 400, code: 'BAD_REQUEST', message: 'Empty upload' });
        image.uploadedBytes = bytes.bytes;
        image.patternOk &&= patternOk;
        uploads.push({ kind: 'image', urn: image.urn, bytes: bytes.bytes });
        response.writeHead(201, { 'content-length': '0' }).end();
        return;
      }
      if (!video || !part) return;
      const expected = part.lastByte - part.firstByte + 1;
      if (bytes.bytes !== expected) {
        return apiError(response, {
          status: 400,
          code: 'BAD_REQUEST',
          message: `fake: part ${partIndex} expects ${expected} bytes, got ${bytes.bytes}`,
        });
      }
      video.patternOk &&= patternOk;
      counter += 1;
      part.etag = `/fake-etag/${video.urn.split(':').pop()}-${partIndex}-${counter}`;
      uploads.push({ kind: 'video', urn: video.urn, part: partIndex, bytes: bytes.bytes });
      response.writeHead(200, { etag: part.etag, 'content-length': '0' }).end();
    });
  }

  const server = await listen(handle);
  baseUrl = server.baseUrl;
  const fake: FakeLinkedin = {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    script(step) {
      const on = step.on ?? 'any';
      const matches = (r: RecordedRequest) =>
        (on === 'any' || callOf(r.path, r.query) === on) &&
        (step.path === undefined || r.path === step.path);
      scripts.add(step, matches, step.times ?? 1);
    },
    oauth,
    member,
    organizations,
    authorizedScopes,
    revokeAccessToken: (token) => revoked.add(token),
    posts,
    comments,
    addComment: threads.addComment,
    images,
    videos,
    uploads,
    processingPolls: options.processingPolls ?? 1,
    dailyPostLimit: options.dailyPostLimit,
    postNumbers: stats.numbers,
    postAuthors,
  };
  return fake;
}

const retryAfter = (step: { retryAfterSeconds?: number }): Record<string, string> =>
  step.retryAfterSeconds === undefined ? {} : { 'retry-after': String(step.retryAfterSeconds) };
