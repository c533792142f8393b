// A local YouTube Data API v3 resumable upload endpoint speaking the formats of docs/platforms.md#youtube:
// session start (Location), byte PUTs (201/200 video resource, 308 + Range), status queries
// (`Content-Range: bytes */total`), Google error objects, and Google OAuth: consent
// (/o/oauth2/v2/auth), /token (code exchange and refresh) and channels?mine=true.
// Upload bytes are counted (and checked against the media server's pattern), never kept.
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
import { matchesPattern } from './media-server.ts';
import { answerConsent, consentQueryOf, FakeOAuthProvider } from './oauth.ts';
import type { PostNumbers } from './post-numbers.ts';
import { createYoutubeComments, type YoutubeComment } from './youtube-comments.ts';
import { createYoutubeDeletes } from './youtube-deletes.ts';
import { createYoutubeReading, type YoutubeStatistic } from './youtube-metrics.ts';

export interface YoutubeError {
  status: number;
  reason: string;
  domain: string;
  message: string;
}

/** Documented errors: quota, upload limit, invalid credentials, plus retryable backend/rate errors. */
export const YOUTUBE_ERRORS = {
  quotaExceeded: {
    status: 403,
    reason: 'quotaExceeded',
    domain: 'youtube.quota',
    message: 'The request cannot be completed because you have exceeded your quota.',
  },
  uploadLimitExceeded: {
    status: 400,
    reason: 'uploadLimitExceeded',
    domain: 'youtube.video',
    message: 'The user has exceeded the number of videos they may upload.',
  },
  authError: { status: 401, reason: 'authError', domain: 'global', message: 'Invalid Credentials' },
  backendError: { status: 503, reason: 'backendError', domain: 'global', message: 'Backend Error' },
  rateLimitExceeded: {
    status: 403,
    reason: 'rateLimitExceeded',
    domain: 'usageLimits',
    message: 'Rate Limit Exceeded',
  },
  forbidden: {
    status: 403,
    reason: 'forbidden',
    domain: 'youtube.video',
    message: 'Access forbidden.',
  },
} as const satisfies Record<string, YoutubeError>;

/** `videos`: GET /youtube/v3/videos (the numbers); `delete`: a video's or a comment's DELETE. */
export type YoutubeCall = 'start' | 'upload' | 'status' | 'videos' | 'delete' | 'any';

export type YoutubeScript =
  /** The next `times` matching calls answer this error. */
  | { error: YoutubeError; on?: YoutubeCall; times?: number }
  /** The next `times` matching calls get their connection dropped before any answer. */
  | { drop: true; on?: YoutubeCall; times?: number }
  /** The next `times` byte PUTs: connection dropped once this PUT delivered `dropAfterBytes`. */
  | { dropAfterBytes: number; times?: number }
  /** The next `times` token refreshes answer `{ error, error_description }` (400 unless given). */
  | { tokenError: string; status?: number; times?: number };

export interface YoutubeSession {
  id: string;
  url: string;
  metadata: unknown;
  headers: Record<string, string | string[] | undefined>;
  totalBytes: number;
  contentType: string;
  receivedBytes: number;
  /** Every received byte matched the media server's pattern at its offset. */
  patternOk: boolean;
  /** Byte PUTs received (status queries excluded). */
  uploads: number;
  videoId: string | null;
}

export interface FakeYoutube extends FakeServer {
  script(step: YoutubeScript): void;
  /** commentThreads.insert calls, in order. */
  comments: YoutubeComment[];
  /** Someone else comments on a video, or answers a top-level comment (youtube-comments.ts). */
  addComment(objectId: string, text: string): YoutubeComment;
  /** Every resumable session created, in order. */
  sessions: YoutubeSession[];
  expireAccessToken(token: string): void;
  revokeRefreshToken(token: string): void;
  /**
   * Google's consent, code exchange and refresh of the tokens it issued (PKCE optional, refresh
   * tokens not rotated: a refresh answers none): script denials and refusals here.
   */
  oauth: FakeOAuthProvider;
  /** The channel of the Google account that consents; null: the account has none. */
  channel: { id: string; title: string } | null;
  /**
   * GET /youtube/v3/videos?part=statistics (youtube-metrics.ts): per-video counts under
   * YouTube's names (null: hidden, left out); setting some makes the video exist, `remove`
   * makes it vanish from `items`. Uploaded videos exist with derived counts.
   */
  statistics: PostNumbers<YoutubeStatistic>;
}

const START_PATH = '/upload/youtube/v3/videos';

export async function startFakeYoutube(
  options: { oauth?: { clientId: string; clientSecret: string } } = {},
): Promise<FakeYoutube> {
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'youtube-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'youtube-client-secret',
    pkce: 'optional',
    accessTokenTtlSeconds: 3_599,
  });
  const requests: RecordedRequest[] = [];
  const sessions: YoutubeSession[] = [];
  const comments: YoutubeComment[] = [];
  const scripts = new ScriptQueue<YoutubeScript>();
  const expired = new Set<string>();
  const revoked = new Set<string>();
  /** Access tokens issued by refreshing a token the OAuth provider did not issue (older tests). */
  const refreshedAccess = new Set<string>();
  let baseUrl = '';
  let counter = 0;
  const reading = createYoutubeReading(() =>
    sessions.flatMap((session) => (session.videoId ? [session.videoId] : [])),
  );

  const deletes = createYoutubeDeletes({
    videoIds: () => sessions.flatMap((session) => (session.videoId ? [session.videoId] : [])),
    numbers: reading.numbers,
    comments,
    scopesOf: (token) => oauth.issued.find((issued) => issued.accessToken === token)?.scopes,
    refuse: (response, error) => googleError(response, error),
    noContent: (response) => {
      response.writeHead(204).end();
    },
  });

  const commentsApi = createYoutubeComments(
    comments,
    () => fake.channel,
    (id) => deletes.videoExists(id),
    (response, error) => googleError(response, error),
  );
  const googleError = (response: ServerResponse, error: YoutubeError) =>
    sendJson(response, error.status, {
      error: {
        code: error.status,
        message: error.message,
        errors: [{ message: error.message, domain: error.domain, reason: error.reason }],
      },
    });

  const callOf = (request: IncomingMessage, url: URL): YoutubeCall => {
    if (url.pathname === START_PATH && url.searchParams.has('upload_id')) {
      return (request.headers['content-range'] ?? '').startsWith('bytes */') ? 'status' : 'upload';
    }
    return url.pathname === START_PATH ? 'start' : 'any';
  };

  const videoResource = (session: YoutubeSession) => {
    const meta = (session.metadata ?? {}) as {
      snippet?: unknown;
      status?: { privacyStatus?: string };
    };
    return {
      kind: 'youtube#video',
      etag: `etag-${session.id}`,
      id: session.videoId,
      snippet: meta.snippet,
      status: {
        uploadStatus: 'uploaded',
        privacyStatus: meta.status?.privacyStatus ?? 'private',
        license: 'youtube',
        embeddable: true,
        publicStatsViewable: true,
      },
    };
  };

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    if (url.pathname === '/token') return token(request, response, url);
    if (url.pathname === '/o/oauth2/v2/auth') {
      return answerConsent(response, oauth.authorize(consentQueryOf(url.searchParams)));
    }
    const call = callOf(request, url);
    if (call === 'upload') return upload(request, response, url);

    const raw = await readBody(request);
    const recorded = record(request, url, parseBody(raw, request.headers['content-type']));
    requests.push(recorded);
    const scripted = scripts.take(recorded, (a) => 'error' in a || 'drop' in a);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) return googleError(response, scripted.error);
    const accessToken = bearerToken(request.headers);
    if (!accessToken || expired.has(accessToken))
      return googleError(response, YOUTUBE_ERRORS.authError);

    if (url.pathname === '/youtube/v3/channels' && request.method === 'GET') {
      // The channel needs a token this fake issued (uploads accept any unexpired token).
      if (!oauth.isValidAccessToken(accessToken) && !refreshedAccess.has(accessToken)) {
        return googleError(response, YOUTUBE_ERRORS.authError);
      }
      return sendJson(response, 200, {
        kind: 'youtube#channelListResponse',
        pageInfo: { totalResults: fake.channel ? 1 : 0, resultsPerPage: 5 },
        items: fake.channel
          ? [
              {
                kind: 'youtube#channel',
                id: fake.channel.id,
                snippet: { title: fake.channel.title },
              },
            ]
          : [],
      });
    }

    if (
      request.method === 'DELETE' &&
      deletes.handle(response, url.pathname, url.searchParams, accessToken)
    ) {
      return;
    }

    if (url.pathname === '/youtube/v3/videos' && request.method === 'GET') {
      return reading.list(response, url.searchParams, (reason, message) =>
        googleError(response, { status: 400, reason, domain: 'global', message }),
      );
    }

    const method = request.method ?? 'GET';
    if (commentsApi.handle(response, method, url.pathname, url.searchParams, recorded.body)) {
      return;
    }
    if (url.pathname === '/youtube/v3/commentThreads' && request.method === 'POST') {
      const body = recorded.body;
      const snippet = (isRecordLike(body) ? body.snippet : undefined) as
        | { videoId?: unknown; topLevelComment?: { snippet?: { textOriginal?: unknown } } }
        | undefined;
      const videoId = snippet?.videoId;
      const text = snippet?.topLevelComment?.snippet?.textOriginal;
      if (url.searchParams.get('part') !== 'snippet' || typeof text !== 'string' || text === '') {
        return googleError(response, {
          status: 400,
          reason: 'commentTextRequired',
          domain: 'youtube.commentThread',
          message: 'The comment must contain text.',
        });
      }
      if (typeof videoId !== 'string' || !deletes.videoExists(videoId)) {
        return googleError(response, {
          status: 404,
          reason: 'videoNotFound',
          domain: 'youtube.commentThread',
          message: 'The video identified by the videoId parameter could not be found.',
        });
      }
      const made = {
        id: `Ugw${comments.length + 1}fakeThread`,
        videoId: String(videoId),
        textOriginal: text,
      };
      comments.push(made);
      return sendJson(response, 200, {
        kind: 'youtube#commentThread',
        id: made.id,
        snippet: {
          videoId: made.videoId,
          topLevelComment: { id: made.id, snippet: { textOriginal: text } },
        },
      });
    }

    if (call === 'start') {
      if (request.method !== 'POST' || url.searchParams.get('uploadType') !== 'resumable') {
        return googleError(response, {
          status: 400,
          reason: 'badRequest',
          domain: 'global',
          message: 'uploadType=resumable is required',
        });
      }
      const total = Number(request.headers['x-upload-content-length']);
      if (!Number.isSafeInteger(total) || total <= 0) {
        return googleError(response, {
          status: 400,
          reason: 'badRequest',
          domain: 'global',
          message: 'X-Upload-Content-Length is required',
        });
      }
      const title = (recorded.body as { snippet?: { title?: unknown } } | undefined)?.snippet
        ?.title;
      if (typeof title !== 'string' || title.length === 0 || Array.from(title).length > 100) {
        return googleError(response, {
          status: 400,
          reason: 'invalidTitle',
          domain: 'youtube.video',
          message: 'The request metadata specifies an invalid video title.',
        });
      }
      const id = `fake-upload-${++counter}`;
      const session: YoutubeSession = {
        id,
        url: `${baseUrl}${START_PATH}?uploadType=resumable&upload_id=${id}`,
        metadata: recorded.body,
        headers: { ...request.headers },
        totalBytes: total,
        contentType: String(request.headers['x-upload-content-type'] ?? ''),
        receivedBytes: 0,
        patternOk: true,
        uploads: 0,
        videoId: null,
      };
      sessions.push(session);
      response.writeHead(200, { location: session.url, 'content-length': '0' });
      return response.end();
    }

    if (call === 'status') {
      const session = sessions.find((s) => s.id === url.searchParams.get('upload_id'));
      if (!session)
        return googleError(response, {
          status: 404,
          reason: 'notFound',
          domain: 'global',
          message: 'Upload session not found',
        });
      return answerSession(response, session, false);
    }
    return googleError(response, {
      status: 404,
      reason: 'notFound',
      domain: 'global',
      message: 'Not Found',
    });
  }

  /** 201 on the PUT that completes, 200 afterwards; 308 with Range (none if 0 bytes) before. */
  function answerSession(response: ServerResponse, session: YoutubeSession, completedNow: boolean) {
    if (session.receivedBytes >= session.totalBytes) {
      session.videoId ??= `vid${String(counter).padStart(8, '0')}`;
      return sendJson(response, completedNow ? 201 : 200, videoResource(session));
    }
    const headers: Record<string, string> = { 'content-length': '0' };
    if (session.receivedBytes > 0) headers.range = `bytes=0-${session.receivedBytes - 1}`;
    response.writeHead(308, headers);
    response.end();
  }

  function upload(request: IncomingMessage, response: ServerResponse, url: URL) {
    const bytes = { bytes: 0 };
    const recorded = record(request, url, bytes);
    requests.push(recorded);
    const session = sessions.find((s) => s.id === url.searchParams.get('upload_id'));
    const scripted = scripts.take(recorded, (a) => 'error' in a || 'drop' in a);
    const reject = (send: () => void) => {
      request.resume(); // discard the body
      request.on('end', send);
    };
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) {
      const error = scripted.error;
      return reject(() => googleError(response, error));
    }
    const accessToken = bearerToken(request.headers);
    if (!accessToken || expired.has(accessToken))
      return reject(() => googleError(response, YOUTUBE_ERRORS.authError));
    if (!session)
      return reject(() =>
        googleError(response, {
          status: 404,
          reason: 'notFound',
          domain: 'global',
          message: 'Upload session not found',
        }),
      );
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers['content-range'] ?? ''));
    const start = range ? Number(range[1]) : 0;
    if (start !== session.receivedBytes) {
      return reject(() =>
        googleError(response, {
          status: 400,
          reason: 'badContent',
          domain: 'global',
          message: `Content-Range starts at ${start}, the session holds ${session.receivedBytes} bytes`,
        }),
      );
    }
    session.uploads += 1;
    const dropping = scripts.take(recorded, (a) => 'dropAfterBytes' in a);
    const dropAfter =
      dropping && 'dropAfterBytes' in dropping ? dropping.dropAfterBytes : Number.POSITIVE_INFINITY;
    const wasComplete = session.receivedBytes >= session.totalBytes;
    let dropped = false;
    request.on('data', (chunk: Buffer) => {
      if (dropped) return;
      let piece = chunk;
      if (bytes.bytes + piece.length >= dropAfter) {
        piece = piece.subarray(0, dropAfter - bytes.bytes);
        dropped = true;
      }
      const room = session.totalBytes - session.receivedBytes;
      if (piece.length > room) piece = piece.subarray(0, Math.max(room, 0));
      if (!matchesPattern(piece, session.receivedBytes)) session.patternOk = false;
      session.receivedBytes += piece.length;
      bytes.bytes += piece.length;
      if (dropped) dropConnection(request);
    });
    request.on('end', () => {
      if (!dropped)
        answerSession(
          response,
          session,
          !wasComplete && session.receivedBytes >= session.totalBytes,
        );
    });
  }

  async function token(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const recorded = record(request, url, parseBody(raw, request.headers['content-type']));
    requests.push(recorded);
    const form = (recorded.body ?? {}) as Record<string, string>;
    const scripted = scripts.take(recorded, (a) => 'tokenError' in a);
    if (scripted && 'tokenError' in scripted) {
      return sendJson(response, scripted.status ?? 400, {
        error: scripted.tokenError,
        error_description: 'scripted token error',
      });
    }
    if (!form.client_id || !form.client_secret) {
      return sendJson(response, 401, {
        error: 'invalid_client',
        error_description: 'The OAuth client was not found.',
      });
    }
    if (form.grant_type === 'authorization_code') {
      const answer = oauth.exchangeCode({
        code: form.code,
        clientId: form.client_id,
        clientSecret: form.client_secret,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
      });
      if (!answer.ok) {
        return sendJson(response, answer.status, {
          error: answer.error,
          error_description: answer.description,
        });
      }
      return sendJson(response, 200, {
        access_token: answer.tokens.accessToken,
        expires_in: answer.tokens.expiresIn,
        refresh_token: answer.tokens.refreshToken,
        scope: answer.tokens.scopes.join(' '),
        token_type: 'Bearer',
      });
    }
    if (form.grant_type !== 'refresh_token') {
      return sendJson(response, 400, {
        error: 'unsupported_grant_type',
        error_description: 'Invalid grant_type',
      });
    }
    if (!form.refresh_token || revoked.has(form.refresh_token)) {
      return sendJson(response, 400, {
        error: 'invalid_grant',
        error_description: 'Token has been expired or revoked.',
      });
    }
    if (oauth.issuedRefreshToken(form.refresh_token)) {
      // A token of the OAuth flow: the provider checks the client; Google does not rotate it.
      const answer = oauth.refresh({
        refreshToken: form.refresh_token,
        clientId: form.client_id,
        clientSecret: form.client_secret,
      });
      if (!answer.ok) {
        return sendJson(response, answer.status, {
          error: answer.error,
          error_description:
            answer.error === 'invalid_grant'
              ? 'Token has been expired or revoked.'
              : answer.description,
        });
      }
      return sendJson(response, 200, {
        access_token: answer.tokens.accessToken,
        expires_in: answer.tokens.expiresIn,
        scope: answer.tokens.scopes.join(' '),
        token_type: 'Bearer',
      });
    }
    // Any other refresh token (the publisher tests bring their own) is accepted.
    const access = `ya29.refreshed-${++counter}`;
    refreshedAccess.add(access);
    sendJson(response, 200, {
      access_token: access,
      expires_in: 3599,
      scope: 'https://www.googleapis.com/auth/youtube.upload',
      token_type: 'Bearer',
    });
  }

  const server = await listen(handle);
  baseUrl = server.baseUrl;
  const fake: FakeYoutube = {
    baseUrl,
    requests,
    sessions,
    comments,
    addComment: commentsApi.addComment,
    close: server.close,
    script(step) {
      let matches: (r: RecordedRequest) => boolean = () => true;
      if ('tokenError' in step) {
        matches = (r) => r.path === '/token';
      } else if ('dropAfterBytes' in step) {
        matches = (r) => r.path === START_PATH && 'upload_id' in r.query;
      } else {
        const on = step.on ?? 'any';
        matches = (r) => {
          if (r.path === '/token') return false;
          if (on === 'any') return true;
          if (on === 'start') return r.path === START_PATH && !('upload_id' in r.query);
          if (on === 'videos') return r.path === '/youtube/v3/videos' && r.method === 'GET';
          if (on === 'delete') return r.method === 'DELETE';
          const isStatus = String(r.headers['content-range'] ?? '').startsWith('bytes */');
          return 'upload_id' in r.query && (on === 'status' ? isStatus : !isStatus);
        };
      }
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (token) => expired.add(token),
    revokeRefreshToken(token) {
      revoked.add(token);
      oauth.revoke(token);
    },
    oauth,
    channel: { id: 'UC-fake-channel', title: 'Fake Channel' },
    statistics: reading.numbers,
  };
  return fake;
}

const isRecordLike = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
