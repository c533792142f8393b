// A local Bluesky (AT Protocol) service: sessions (com.atproto.server.createSession,
// refreshSession: app passwords traded for JWTs, refresh JWTs rotate) and the repository calls
// a publish makes (com.atproto.repo.uploadBlob, createRecord, getRecord), and deleteRecord
// (200 `{ commit }`; 200 `{}` for a record that is not there, a no-op as the PDS answers it,
// the record gone from `posts` and getPosts), replies by others and getPostThread
// (bluesky-threads.ts). XRPC errors are
// `{ error, message }`; 429s carry ratelimit-limit/-remaining/-reset.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BlueskyCount, createBlueskyReading } from './bluesky-metrics.ts';
import { type BlueskyForeignPost, createBlueskyThreads } from './bluesky-threads.ts';
import {
  bearerToken,
  dropConnection,
  type FakeServer,
  listen,
  type RecordedRequest,
  readBody,
  record,
  ScriptQueue,
  sendJson,
} from './http.ts';
import type { PostNumbers } from './post-numbers.ts';

/** An XRPC error answer. */
export interface BlueskyError {
  status: number;
  error: string;
  message: string;
  headers?: Record<string, string>;
}

export type BlueskyScript =
  /** The next `times` calls (to `nsid` if given) answer this error. */
  | { error: BlueskyError; nsid?: string; times?: number }
  /** The next `times` calls (to `nsid` if given) get their connection dropped. */
  | { drop: true; nsid?: string; times?: number }
  /** The next call to `nsid` is acted on, then its connection dropped (the answer is lost). */
  | { dropAfterCreate: true; nsid?: string; times?: number };

export interface BlueskyAccount {
  did: string;
  handle: string;
  /** The app password createSession takes. */
  appPassword: string;
}

/** A post record as created: its key, reference and the record itself. */
export interface BlueskyPost {
  repo: string;
  rkey: string;
  uri: string;
  cid: string;
  record: Record<string, unknown>;
}

export interface BlueskyBlob {
  cid: string;
  mimeType: string;
  size: number;
}

export interface FakeBlueskyOptions {
  account?: Partial<BlueskyAccount>;
  /** Access JWT lifetime (default 2 hours, like Bluesky's). */
  accessTtlSeconds?: number;
  /** Creates allowed before createRecord answers 429 (default unlimited). */
  postLimit?: number;
}

export interface FakeBluesky extends FakeServer {
  account: BlueskyAccount;
  script(step: BlueskyScript): void;
  /** A session for the account without a createSession request (unit tests). */
  issueSession(): { accessJwt: string; refreshJwt: string; did: string; handle: string };
  /** Further calls with this access JWT answer 401 ExpiredToken. */
  expireAccessToken(token: string): void;
  /** Further refreshSession calls with this refresh JWT answer 400 ExpiredToken. */
  revokeRefreshToken(token: string): void;
  posts: BlueskyPost[];
  blobs: BlueskyBlob[];
  /** Blobs over this many bytes are refused when their type is image/* (Bluesky: 1,000,000). */
  readonly maxImageBytes: number;
  /**
   * app.bsky.feed.getPosts (bluesky-metrics.ts): per-URI counts under Bluesky's names (null:
   * left out); setting some makes the post exist, `remove` drops it from `posts`. Created
   * posts exist with derived counts.
   */
  counts: PostNumbers<BlueskyCount>;
  /**
   * Replies by other accounts (bluesky-threads.ts): `addReply(parentUri, text)` makes one;
   * app.bsky.feed.getPostThread shows it under its parent with ours.
   */
  addReply(parentUri: string, text: string): BlueskyForeignPost;
  foreignPosts: BlueskyForeignPost[];
}

/** A TID: 13 characters of base32-sortable, the first within 2-j (top bit clear). */
const TID = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemes = (text: string) => [...segmenter.segment(text)].length;

const fakeCid = (seed: string) =>
  `bafyrei${createHash('sha256').update(seed).digest('hex').slice(0, 40)}`;

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'at+jwt' })}.${part(claims)}.${randomBytes(16).toString('base64url')}`;
}

const xrpcError = (status: number, error: string, message: string): BlueskyError => ({
  status,
  error,
  message,
});

export async function startFakeBluesky(options: FakeBlueskyOptions = {}): Promise<FakeBluesky> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<BlueskyScript>();
  const account: BlueskyAccount = {
    did: 'did:plc:fakebluesky0000000000000',
    handle: 'fake.bsky.social',
    appPassword: 'abcd-efgh-ijkl-mnop',
    ...options.account,
  };
  const accessTtl = options.accessTtlSeconds ?? 7_200;
  /** Live access and refresh JWTs, each for a DID. */
  const access = new Map<string, string>();
  const refresh = new Map<string, string>();
  const expired = new Set<string>();
  const posts: BlueskyPost[] = [];
  const blobs: BlueskyBlob[] = [];
  const maxImageBytes = 1_000_000;
  const reading = createBlueskyReading(
    () => posts,
    () => account.handle,
  );

  const threads = createBlueskyThreads(
    () => posts,
    () => ({ did: account.did, handle: account.handle }),
  );

  function issueSession() {
    const now = Math.floor(Date.now() / 1000);
    const accessJwt = jwt({
      scope: 'com.atproto.appPass',
      sub: account.did,
      iat: now,
      exp: now + accessTtl,
    });
    const refreshJwt = jwt({
      scope: 'com.atproto.refresh',
      sub: account.did,
      iat: now,
      jti: randomBytes(8).toString('hex'),
    });
    access.set(accessJwt, account.did);
    refresh.set(refreshJwt, account.did);
    return { accessJwt, refreshJwt, did: account.did, handle: account.handle };
  }

  const send = (response: ServerResponse, e: BlueskyError) =>
    sendJson(response, e.status, { error: e.error, message: e.message }, e.headers ?? {});

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const nsid = url.pathname.replace(/^\/xrpc\//, '');
    const upload = nsid === 'com.atproto.repo.uploadBlob';
    const raw = await readBody(request, 200 * 1024 * 1024);
    let body: unknown;
    if (upload) body = { bytes: raw.length };
    else if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        body = raw.toString('utf8');
      }
    }
    const recorded = record(request, url, body);
    requests.push(recorded);
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) return send(response, scripted.error);
    const act = () => route(nsid, request, recorded, raw);
    const answer = await act();
    if (scripted && 'dropAfterCreate' in scripted) return dropConnection(request);
    return send200(response, answer);
  }

  type Answer = { status: 200; json: unknown } | BlueskyError;
  const send200 = (response: ServerResponse, answer: Answer) =>
    answer.status === 200
      ? sendJson(response, 200, (answer as { json: unknown }).json)
      : send(response, answer as BlueskyError);

  /** The DID the request's access JWT acts for; an error answer when it acts for none. */
  function authorize(request: IncomingMessage): string | BlueskyError {
    const token = bearerToken(request.headers);
    if (!token) return xrpcError(401, 'AuthMissing', 'Authentication Required');
    if (expired.has(token)) return xrpcError(401, 'ExpiredToken', 'Token has expired');
    const did = access.get(token);
    if (!did) return xrpcError(401, 'InvalidToken', 'Token could not be verified');
    return did;
  }

  async function route(
    nsid: string,
    request: IncomingMessage,
    recorded: RecordedRequest,
    raw: Buffer,
  ): Promise<Answer> {
    const input = (recorded.body ?? {}) as Record<string, unknown>;
    if (nsid === 'com.atproto.server.createSession' && request.method === 'POST') {
      const identifier = String(input.identifier ?? '');
      if (typeof input.identifier !== 'string' || typeof input.password !== 'string') {
        return xrpcError(400, 'InvalidRequest', 'Input must have the property "identifier"');
      }
      if (identifier !== account.handle || input.password !== account.appPassword) {
        return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
      }
      const session = issueSession();
      return { status: 200, json: { ...session, active: true } };
    }
    if (nsid === 'com.atproto.server.refreshSession' && request.method === 'POST') {
      const token = bearerToken(request.headers) ?? '';
      const did = refresh.get(token);
      if (!did || expired.has(token))
        return xrpcError(400, 'ExpiredToken', 'Token has been revoked');
      refresh.delete(token); // rotated: a refresh JWT is good once
      return { status: 200, json: issueSession() };
    }
    const did = authorize(request);
    if (typeof did !== 'string') return did;
    if (nsid === 'com.atproto.repo.uploadBlob' && request.method === 'POST') {
      const mimeType = String(request.headers['content-type'] ?? 'application/octet-stream');
      if (mimeType.startsWith('image/') && raw.length > maxImageBytes) {
        return xrpcError(
          400,
          'BlobTooLarge',
          `This file is too large. It is ${raw.length} bytes but the maximum size is ${maxImageBytes} bytes.`,
        );
      }
      const blob = {
        cid: fakeCid(`blob:${blobs.length}:${raw.length}`),
        mimeType,
        size: raw.length,
      };
      blobs.push(blob);
      return {
        status: 200,
        json: { blob: { $type: 'blob', ref: { $link: blob.cid }, mimeType, size: blob.size } },
      };
    }
    if (nsid === 'com.atproto.repo.createRecord' && request.method === 'POST') {
      return createRecord(did, input);
    }
    if (nsid === 'com.atproto.repo.deleteRecord' && request.method === 'POST') {
      return deleteRecord(did, input);
    }
    if (nsid === 'app.bsky.feed.getPosts' && request.method === 'GET') {
      const uris = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.getAll('uris');
      return reading.getPosts(uris) as Answer;
    }
    if (nsid === 'app.bsky.feed.getPostThread' && request.method === 'GET') {
      const depth = Number(recorded.query.depth ?? '6');
      return threads.getPostThread(String(recorded.query.uri ?? ''), depth) as Answer;
    }
    if (nsid === 'com.atproto.repo.getRecord' && request.method === 'GET') {
      const query = recorded.query;
      const found = posts.find(
        (post) =>
          post.repo === query.repo &&
          post.rkey === query.rkey &&
          query.collection === 'app.bsky.feed.post',
      );
      if (!found)
        return xrpcError(
          400,
          'RecordNotFound',
          `Could not locate record: at://${query.repo}/${query.collection}/${query.rkey}`,
        );
      return { status: 200, json: { uri: found.uri, cid: found.cid, value: found.record } };
    }
    return xrpcError(501, 'MethodNotImplemented', `Method Not Implemented: ${nsid}`);
  }

  /** `{ repo, collection, rkey }` of the authenticated account; an absent record is a no-op. */
  function deleteRecord(did: string, input: Record<string, unknown>): Answer {
    if (input.repo !== did)
      return xrpcError(400, 'InvalidRequest', 'Invalid repo: not the authenticated account');
    if (typeof input.collection !== 'string' || typeof input.rkey !== 'string') {
      return xrpcError(
        400,
        'InvalidRequest',
        'Input must have the properties "repo", "collection" and "rkey"',
      );
    }
    const index = posts.findIndex(
      (post) =>
        post.repo === did && post.rkey === input.rkey && input.collection === 'app.bsky.feed.post',
    );
    const post = posts[index];
    if (!post) return { status: 200, json: {} };
    posts.splice(index, 1);
    reading.numbers.remove(post.uri);
    return {
      status: 200,
      json: { commit: { cid: fakeCid(`commit:${post.uri}`), rev: `3l${Date.now().toString(36)}` } },
    };
  }

  function createRecord(did: string, input: Record<string, unknown>): Answer {
    if (input.repo !== did)
      return xrpcError(400, 'InvalidRequest', 'Invalid repo: not the authenticated account');
    if (input.collection !== 'app.bsky.feed.post')
      return xrpcError(400, 'InvalidRequest', 'Unsupported collection');
    const rkey = typeof input.rkey === 'string' ? input.rkey : undefined;
    if (rkey !== undefined && !TID.test(rkey))
      return xrpcError(400, 'InvalidRequest', 'Invalid record key: not a TID');
    const rec = input.record as Record<string, unknown> | undefined;
    const text = typeof rec?.text === 'string' ? rec.text : undefined;
    if (
      !rec ||
      text === undefined ||
      rec.$type !== 'app.bsky.feed.post' ||
      typeof rec.createdAt !== 'string'
    ) {
      return xrpcError(
        400,
        'InvalidRequest',
        'Invalid app.bsky.feed.post record: Record must have the properties "text" and "createdAt"',
      );
    }
    if (graphemes(text) > 300) {
      return xrpcError(
        400,
        'InvalidRequest',
        'Invalid app.bsky.feed.post record: Record/text must not be longer than 300 graphemes',
      );
    }
    const bytes = Buffer.byteLength(text);
    for (const facet of (rec.facets as
      | { index?: { byteStart?: number; byteEnd?: number } }[]
      | undefined) ?? []) {
      const { byteStart = -1, byteEnd = -1 } = facet.index ?? {};
      if (byteStart < 0 || byteEnd > bytes || byteStart >= byteEnd) {
        return xrpcError(
          400,
          'InvalidRequest',
          'Invalid app.bsky.feed.post record: facet index out of range',
        );
      }
    }
    if (options.postLimit !== undefined && posts.length >= options.postLimit) {
      const reset = String(Math.floor(Date.now() / 1000) + 60);
      return {
        ...xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded'),
        headers: {
          'ratelimit-limit': String(options.postLimit),
          'ratelimit-remaining': '0',
          'ratelimit-reset': reset,
          'ratelimit-policy': `${options.postLimit};w=3600`,
        },
      };
    }
    const key = rkey ?? `3l${randomBytes(6).toString('hex').slice(0, 11)}`;
    if (posts.some((post) => post.repo === did && post.rkey === key)) {
      return xrpcError(
        400,
        'InvalidRequest',
        `Record already exists at at://${did}/app.bsky.feed.post/${key}`,
      );
    }
    const uri = `at://${did}/app.bsky.feed.post/${key}`;
    const post = { repo: did, rkey: key, uri, cid: fakeCid(uri), record: rec };
    posts.push(post);
    return { status: 200, json: { uri, cid: post.cid, validationStatus: 'valid' } };
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    account,
    script: (step) =>
      scripts.add(
        step,
        (request) => step.nsid === undefined || request.path === `/xrpc/${step.nsid}`,
        step.times ?? 1,
      ),
    issueSession,
    expireAccessToken: (token) => expired.add(token),
    revokeRefreshToken: (token) => expired.add(token),
    posts,
    blobs,
    maxImageBytes,
    counts: reading.numbers,
    addReply: threads.addReply,
    foreignPosts: threads.foreign,
  };
}
