// A local Pinterest API v5 (docs/platforms.md#pinterest): the OAuth flow (consent at /oauth/,
// tokens at POST /v5/oauth/token with HTTP Basic client authentication), the user account,
// Pins (image URL, several image URLs, a video by media id) saved on the user's boards, the
// board's Pins newest first, and video uploads (POST /v5/media registers one, the bytes go as
// a multipart form to the upload URL, a stand-in for Pinterest's S3 bucket on this same server,
// GET /v5/media/{id} tells the processing). Errors are `{ code, message }` with the status.

import { randomBytes } from 'node:crypto';
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
import { parseMultipart } from './multipart.ts';
import { answerConsent, consentQueryOf, FakeOAuthProvider } from './oauth.ts';
import { PostNumbers } from './post-numbers.ts';

/** Pinterest's error bodies as the fake gives them (status, Pinterest's number, message). */
export const PINTEREST_ERRORS = {
  authenticationFailed: { status: 401, code: 2, message: 'Authentication failed.' },
  rateLimited: {
    status: 429,
    code: 8,
    message: 'You have exceeded your rate limit. Try again later.',
  },
  forbidden: {
    status: 403,
    code: 29,
    message: 'You are not permitted to access that resource.',
  },
  boardNotFound: { status: 404, code: 40, message: 'Board not found.' },
  invalidParameters: { status: 400, code: 1, message: 'Invalid parameters.' },
  serverError: { status: 500, code: 3, message: 'Something went wrong on our end.' },
} as const;

export interface PinterestApiError {
  status: number;
  code: number;
  message: string;
}

/** Where a script applies: the call it matches. */
export type PinterestCall =
  | 'token'
  | 'userAccount'
  | 'pin'
  | 'boardPins'
  | 'media'
  | 'mediaStatus'
  /** GET /v5/pins/{pin_id}/analytics */
  | 'pinAnalytics'
  /** DELETE /v5/pins/{pin_id} */
  | 'pinDelete'
  | 'upload';

export type PinterestScript =
  /** The next `times` matching calls answer this error (Retry-After when given). */
  | { error: PinterestApiError; on?: PinterestCall; times?: number; retryAfterSeconds?: number }
  /** The next `times` matching calls get their connection dropped, unanswered and not acted on. */
  | { drop: true; on?: PinterestCall; times?: number }
  /** The next Pin is created, then its connection dropped before the answer. */
  | { dropAfterCreate: true; times?: number };

export interface PinterestPin {
  id: string;
  board_id: string;
  created_at: string;
  title: string | null;
  description: string;
  link: string | null;
  alt_text: string | null;
  media_source: Record<string, unknown>;
}

export interface PinterestMedia {
  media_id: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  /** The signed key the upload form must carry. */
  key: string;
  /** Bytes received by the upload, and whether they were the media server's pattern. */
  bytes: number;
  patternOk: boolean;
  /** Status reads while processing (the fake succeeds after `processingPolls`). */
  polls: number;
  failing: boolean;
}

export interface FakePinterestOptions {
  /** The app's id and secret (default pinterest-client-id / pinterest-client-secret). */
  oauth?: { clientId: string; clientSecret: string };
  /** Status reads a video stays `processing` before `succeeded` (default 1). */
  processingPolls?: number;
  /** Pins created before POST /v5/pins answers 429 with the X-RateLimit-* headers. */
  pinLimit?: number;
}

export interface FakePinterest extends FakeServer {
  oauth: FakeOAuthProvider;
  /** Who consents: GET /v5/user_account answers it. */
  user: { id: string; username: string };
  /** The user's boards by id (Pins on another board are refused with 404). */
  boards: Map<string, { id: string; name: string }>;
  /** Pins created, in order. */
  pins: PinterestPin[];
  /** Registered video uploads by media id. */
  media: Map<string, PinterestMedia>;
  script(step: PinterestScript): void;
  /** Further API calls with this access token answer 401. */
  expireAccessToken(token: string): void;
  /** The next video registered fails processing. */
  failNextVideo(): void;
  /** Mutable: the 429 threshold of POST /v5/pins. */
  pinLimit: number | undefined;
  /**
   * What GET /v5/pins/{pin_id}/analytics answers per Pin (IMPRESSION, SAVE, PIN_CLICK,
   * OUTBOUND_CLICK in `all.lifetime_metrics`): `set` (null leaves a metric out, and makes the Pin
   * exist), `remove` (the Pin is gone: 404); Pins created here get derived numbers.
   */
  analytics: PostNumbers<PinterestMetric>;
}

export const PINTEREST_METRICS = ['IMPRESSION', 'SAVE', 'PIN_CLICK', 'OUTBOUND_CLICK'] as const;
export type PinterestMetric = (typeof PINTEREST_METRICS)[number];
/** Days of organic analytics Pinterest keeps (the window's start may be 89 days before today). */
const ANALYTICS_DAYS = 90;

/** The board every test user has (Pinterest board ids are numeric strings). */
export const PINTEREST_BOARD_ID = '549755885175';
const UPLOAD_PATH = '/fake-s3/pinterest-media-upload';
const TITLE_MAX = 100;
const DESCRIPTION_MAX = 500;

/** HTTP Basic credentials, when the request has them. */
function basicCredentials(request: IncomingMessage) {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return {
    clientId: decodeURIComponent(decoded.slice(0, colon)),
    clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

function callOf(method: string, path: string): PinterestCall | undefined {
  if (path === '/v5/oauth/token') return 'token';
  if (path === '/v5/user_account' && method === 'GET') return 'userAccount';
  if (path === '/v5/pins' && method === 'POST') return 'pin';
  if (/^\/v5\/boards\/[^/]+\/pins$/.test(path) && method === 'GET') return 'boardPins';
  if (path === '/v5/media' && method === 'POST') return 'media';
  if (/^\/v5\/media\/[^/]+$/.test(path) && method === 'GET') return 'mediaStatus';
  if (path === UPLOAD_PATH && method === 'POST') return 'upload';
  if (/^\/v5\/pins\/[^/]+\/analytics$/.test(path) && method === 'GET') return 'pinAnalytics';
  if (/^\/v5\/pins\/[^/]+$/.test(path) && method === 'DELETE') return 'pinDelete';
  return undefined;
}

const pinterestError = (
  response: ServerResponse,
  error: PinterestApiError,
  headers: Record<string, string> = {},
) => sendJson(response, error.status, { code: error.code, message: error.message }, headers);

/** Pinterest writes times without a zone (UTC), to the second. */
const pinterestNow = () => new Date().toISOString().slice(0, 19);

export async function startFakePinterest(
  options: FakePinterestOptions = {},
): Promise<FakePinterest> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<PinterestScript>();
  const expired = new Set<string>();
  const oauth = new FakeOAuthProvider({
    clientId: options.oauth?.clientId ?? 'pinterest-client-id',
    clientSecret: options.oauth?.clientSecret ?? 'pinterest-client-secret',
    pkce: 'optional',
    accessTokenTtlSeconds: 2_592_000,
  });
  const user = { id: '1111111111111111111', username: 'fake_pinner' };
  const boards = new Map([[PINTEREST_BOARD_ID, { id: PINTEREST_BOARD_ID, name: 'Releases' }]]);
  const pins: PinterestPin[] = [];
  const media = new Map<string, PinterestMedia>();
  const processingPolls = options.processingPolls ?? 1;
  let failNext = false;
  let sequence = 0;
  let baseUrl = '';
  const state = { pinLimit: options.pinLimit };
  const analytics = new PostNumbers(PINTEREST_METRICS);

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const contentType = request.headers['content-type'];
    const isMultipart = (contentType ?? '').startsWith('multipart/');
    // Upload bodies are not kept: their size stands in.
    const body = isMultipart ? { bytes: raw.length } : parseBody(raw, contentType);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const method = request.method ?? 'GET';
    const call = callOf(method, url.pathname);

    if (url.pathname === '/oauth/' && method === 'GET') {
      return answerConsent(response, oauth.authorize(consentQueryOf(url.searchParams)));
    }
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'dropAfterCreate' in scripted) {
      const lost = { writeHead: () => lost, end: () => lost, setHeader: () => lost };
      const answered = createPin(lost as unknown as ServerResponse, body);
      dropConnection(request);
      return answered;
    }
    if (scripted) {
      const headers: Record<string, string> =
        scripted.retryAfterSeconds === undefined
          ? {}
          : { 'retry-after': String(scripted.retryAfterSeconds) };
      return pinterestError(response, scripted.error, headers);
    }
    if (call === 'token') return token(request, response, body);
    // The upload URL is the storage service's: no token, the signed key is the credential.
    if (call === 'upload') return upload(response, raw, contentType);

    const accessToken = bearerToken(request.headers);
    const issued = oauth.issued.some((t) => t.accessToken === accessToken);
    // Any token a test brings along acts for the user; one the fake issued must still be live.
    if (
      !accessToken ||
      expired.has(accessToken) ||
      (issued && !oauth.isValidAccessToken(accessToken))
    ) {
      return pinterestError(response, PINTEREST_ERRORS.authenticationFailed);
    }
    switch (call) {
      case 'userAccount':
        if (!issued) return pinterestError(response, PINTEREST_ERRORS.authenticationFailed);
        return sendJson(response, 200, {
          account_type: 'BUSINESS',
          id: user.id,
          username: user.username,
          profile_image: 'https://i.pinimg.com/fake.jpg',
          website_url: 'https://example.com',
        });
      case 'pin':
        return createPin(response, body);
      case 'boardPins': {
        const boardId = decodeURIComponent(url.pathname.split('/')[3] ?? '');
        if (!boards.has(boardId)) return pinterestError(response, PINTEREST_ERRORS.boardNotFound);
        const size = Math.min(250, Math.max(1, Number(url.searchParams.get('page_size') ?? 25)));
        const items = pins
          .filter((pin) => pin.board_id === boardId)
          .reverse()
          .slice(0, size);
        return sendJson(response, 200, { items, bookmark: null });
      }
      case 'pinAnalytics':
        return pinAnalytics(response, url, accessToken);
      case 'pinDelete':
        return deletePin(response, url, accessToken);
      case 'media':
        return registerMedia(response, body);
      case 'mediaStatus': {
        const item = media.get(decodeURIComponent(url.pathname.split('/')[3] ?? ''));
        if (!item) {
          return pinterestError(response, { status: 404, code: 4, message: 'Media not found.' });
        }
        if (item.status === 'processing') {
          item.polls += 1;
          if (item.polls > processingPolls) item.status = item.failing ? 'failed' : 'succeeded';
        }
        return sendJson(response, 200, {
          media_id: item.media_id,
          media_type: 'video',
          status: item.status,
        });
      }
      default:
        return pinterestError(response, { status: 404, code: 404, message: 'Not found.' });
    }
  }

  /**
   * DELETE /v5/pins/{pin_id}: 204, the Pin gone from its board and its analytics; a Pin it does
   * not hold (never made, or deleted) is 404 code 50; a token this fake issued needs pins:write.
   */
  function deletePin(response: ServerResponse, url: URL, accessToken: string) {
    const scopes = oauth.issued.find((t) => t.accessToken === accessToken)?.scopes;
    if (scopes && !scopes.includes('pins:write'))
      return pinterestError(response, PINTEREST_ERRORS.forbidden);
    const pinId = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    const index = pins.findIndex((pin) => pin.id === pinId);
    if (index < 0) {
      return pinterestError(response, { status: 404, code: 50, message: 'Pin not found.' });
    }
    pins.splice(index, 1);
    analytics.remove(pinId);
    response.writeHead(204).end();
  }

  /**
   * GET /v5/pins/{pin_id}/analytics?start_date&end_date&metric_types: the window must be dates
   * within the last 90 days (today included), start before end, metric types known (400 code 1
   * otherwise); a token this fake issued needs pins:read (403); unknown or removed Pins are 404.
   */
  function pinAnalytics(response: ServerResponse, url: URL, accessToken: string) {
    const query = url.searchParams;
    const day = /^\d{4}-\d{2}-\d{2}$/;
    const start = query.get('start_date') ?? '';
    const end = query.get('end_date') ?? '';
    const types = (query.get('metric_types') ?? '').split(',').filter(Boolean);
    const today = Date.parse(new Date().toISOString().slice(0, 10));
    const earliest = today - (ANALYTICS_DAYS - 1) * 86_400_000;
    const invalid = (message: string) =>
      pinterestError(response, { ...PINTEREST_ERRORS.invalidParameters, message });
    if (!day.test(start) || !day.test(end))
      return invalid('start_date and end_date are required (YYYY-MM-DD).');
    if (Date.parse(start) < earliest) return invalid('start_date cannot be more than 90 days ago.');
    if (Date.parse(end) > today || Date.parse(start) > Date.parse(end)) {
      return invalid('end_date must be today or earlier, and not before start_date.');
    }
    const unknown = types.find((type) => !(PINTEREST_METRICS as readonly string[]).includes(type));
    if (types.length === 0 || unknown !== undefined) {
      return invalid(`metric_types must be some of ${PINTEREST_METRICS.join(', ')}.`);
    }
    const scopes = oauth.issued.find((t) => t.accessToken === accessToken)?.scopes;
    if (scopes && !scopes.includes('pins:read'))
      return pinterestError(response, PINTEREST_ERRORS.forbidden);
    const pinId = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    const exists = pins.some((pin) => pin.id === pinId) || analytics.isSet(pinId);
    if (!exists || analytics.isGone(pinId)) {
      return pinterestError(response, { status: 404, code: 50, message: 'Pin not found.' });
    }
    const values = analytics.of(pinId);
    const lifetime: Record<string, number> = {};
    for (const type of types) {
      const value = values[type as PinterestMetric];
      if (value !== null) lifetime[type] = value;
    }
    return sendJson(response, 200, {
      all: {
        daily_metrics: [{ date: end, data_status: 'READY', metrics: lifetime }],
        summary_metrics: lifetime,
        lifetime_metrics: lifetime,
      },
    });
  }

  function token(request: IncomingMessage, response: ServerResponse, body: unknown) {
    const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, string>;
    const refuse = (status: number, error: string, description: string) =>
      sendJson(response, status, { error, error_description: description });
    const client = basicCredentials(request);
    if (!client) return refuse(401, 'invalid_client', 'Missing client authentication');
    const answer =
      form.grant_type === 'authorization_code'
        ? oauth.exchangeCode({
            code: form.code,
            ...client,
            redirectUri: form.redirect_uri,
            codeVerifier: form.code_verifier,
          })
        : form.grant_type === 'refresh_token'
          ? oauth.refresh({ refreshToken: form.refresh_token, ...client })
          : undefined;
    if (answer === undefined) return refuse(400, 'unsupported_grant_type', 'Unknown grant_type');
    if (!answer.ok) return refuse(answer.status, answer.error, answer.description);
    sendJson(response, 200, {
      access_token: answer.tokens.accessToken,
      ...(answer.tokens.refreshToken === null ? {} : { refresh_token: answer.tokens.refreshToken }),
      response_type: form.grant_type === 'refresh_token' ? 'refresh_token' : 'authorization_code',
      token_type: 'bearer',
      expires_in: answer.tokens.expiresIn,
      refresh_token_expires_in: 31_536_000,
      scope: answer.tokens.scopes.join(','),
    });
  }

  function createPin(response: ServerResponse, body: unknown) {
    const pin = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const invalid = (message: string) =>
      pinterestError(response, { ...PINTEREST_ERRORS.invalidParameters, message });
    const boardId = typeof pin.board_id === 'string' ? pin.board_id : '';
    if (!boards.has(boardId)) return pinterestError(response, PINTEREST_ERRORS.boardNotFound);
    const description = typeof pin.description === 'string' ? pin.description : '';
    if (Array.from(description).length > DESCRIPTION_MAX) {
      return invalid(`Description is longer than ${DESCRIPTION_MAX} characters.`);
    }
    const title = typeof pin.title === 'string' ? pin.title : null;
    if (title !== null && Array.from(title).length > TITLE_MAX) {
      return invalid(`Title is longer than ${TITLE_MAX} characters.`);
    }
    const source = (
      typeof pin.media_source === 'object' && pin.media_source !== null ? pin.media_source : {}
    ) as Record<string, unknown>;
    const isUrl = (value: unknown) => typeof value === 'string' && /^https?:\/\//.test(value);
    if (source.source_type === 'image_url') {
      if (!isUrl(source.url)) return invalid('media_source.url must be a URL.');
    } else if (source.source_type === 'multiple_image_urls') {
      const items = Array.isArray(source.items) ? source.items : [];
      if (items.length < 2 || items.length > 5) return invalid('A carousel takes 2 to 5 images.');
      if (!items.every((item) => isUrl((item as { url?: unknown } | null)?.url))) {
        return invalid('Every item needs a url.');
      }
    } else if (source.source_type === 'video_id') {
      const item = media.get(String(source.media_id));
      if (item?.status !== 'succeeded') {
        return invalid('The video is not uploaded or not processed yet.');
      }
      if (!isUrl(source.cover_image_url) && typeof source.cover_image_key_frame_time !== 'number') {
        return invalid('A video Pin needs cover_image_url or cover_image_key_frame_time.');
      }
    } else {
      return invalid('media_source.source_type is not supported.');
    }
    if (state.pinLimit !== undefined && pins.length >= state.pinLimit) {
      const reset = 60 - (Math.floor(Date.now() / 1000) % 60);
      return pinterestError(response, PINTEREST_ERRORS.rateLimited, {
        'x-ratelimit-limit': String(state.pinLimit),
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
      });
    }
    sequence += 1;
    const stored: PinterestPin = {
      id: String(813_000_000_000_000_000n + BigInt(sequence)),
      board_id: boardId,
      created_at: pinterestNow(),
      title,
      description,
      link: typeof pin.link === 'string' ? pin.link : null,
      alt_text: typeof pin.alt_text === 'string' ? pin.alt_text : null,
      media_source: source,
    };
    pins.push(stored);
    return sendJson(response, 201, {
      ...stored,
      media: { media_type: source.source_type === 'video_id' ? 'video' : 'image' },
    });
  }

  function registerMedia(response: ServerResponse, body: unknown) {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    if (input.media_type !== 'video') {
      return pinterestError(response, {
        ...PINTEREST_ERRORS.invalidParameters,
        message: 'media_type must be video.',
      });
    }
    sequence += 1;
    const mediaId = String(5_000_000_000 + sequence);
    const key = `uploads/${mediaId}/${randomBytes(8).toString('hex')}`;
    media.set(mediaId, {
      media_id: mediaId,
      status: 'registered',
      key,
      bytes: 0,
      patternOk: false,
      polls: 0,
      failing: failNext,
    });
    failNext = false;
    return sendJson(response, 201, {
      media_id: mediaId,
      media_type: 'video',
      upload_url: `${baseUrl}${UPLOAD_PATH}`,
      upload_parameters: {
        'x-amz-date': '20261125T000000Z',
        'x-amz-signature': randomBytes(16).toString('hex'),
        'x-amz-security-token': 'fake-security-token',
        'x-amz-algorithm': 'AWS4-HMAC-SHA256',
        key,
        policy: Buffer.from(JSON.stringify({ key })).toString('base64'),
        'x-amz-credential': 'FAKE/20261125/us-east-1/s3/aws4_request',
        'Content-Type': 'multipart/form-data',
      },
    });
  }

  /** The storage service: the form's fields, then `file` last; 204 when the key is known. */
  function upload(response: ServerResponse, raw: Buffer, contentType: string | undefined) {
    const s3Error = (status: number, code: string, message: string) => {
      const xml = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
      response.writeHead(status, { 'content-type': 'application/xml' }).end(xml);
    };
    const fields = parseMultipart(raw, contentType);
    const last = fields.at(-1);
    if (last?.name !== 'file') {
      return s3Error(400, 'InvalidArgument', 'The file must be the last field of the form');
    }
    const key = fields.find((field) => field.name === 'key')?.data.toString('utf8');
    const item = [...media.values()].find((candidate) => candidate.key === key);
    if (!item || !fields.some((field) => field.name === 'x-amz-signature')) {
      return s3Error(403, 'AccessDenied', 'Invalid according to Policy');
    }
    item.bytes = last.data.length;
    item.patternOk = matchesPattern(last.data, 0);
    item.status = 'processing';
    response.writeHead(204).end();
  }

  const server = await listen(handle);
  baseUrl = server.baseUrl;
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    oauth,
    user,
    boards,
    pins,
    media,
    script(step) {
      const on = 'on' in step ? step.on : undefined;
      const matches = (r: RecordedRequest) => {
        const call = callOf(r.method, r.path);
        if ('dropAfterCreate' in step) return call === 'pin';
        // OAuth calls are scripted only when asked for by name.
        return on === undefined ? call !== 'token' && call !== undefined : call === on;
      };
      scripts.add(step, matches, step.times ?? 1);
    },
    expireAccessToken: (accessToken) => expired.add(accessToken),
    failNextVideo: () => {
      failNext = true;
    },
    analytics,
    get pinLimit() {
      return state.pinLimit;
    },
    set pinLimit(value) {
      state.pinLimit = value;
    },
  };
}
