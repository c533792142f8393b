// A local Mastodon instance: app registration (POST /api/v1/apps), OAuth with PKCE
// (/oauth/authorize, /oauth/token; tokens never expire, no refresh), identity
// (/api/v1/accounts/verify_credentials), the instance's limits (GET /api/v2/instance), media
// (POST /api/v2/media, 202 while a video processes, GET /api/v1/media/:id 206 until ready) and
// statuses (POST /api/v1/statuses) with Idempotency-Key: a repeat with the same key answers the
// status made the first time, as Mastodon does; DELETE /api/v1/statuses/:id (the status back,
// then 404); replies by others and GET /api/v1/statuses/:id/context (mastodon-comments.ts).
// Errors are `{ error, error_description? }`.
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
import { createMastodonComments, type MastodonForeignStatus } from './mastodon-comments.ts';
import { createMastodonReading, type MastodonCount } from './mastodon-metrics.ts';
import { parseMultipart } from './multipart.ts';
import { answerConsent, consentQueryOf, FakeOAuthProvider } from './oauth.ts';
import type { PostNumbers } from './post-numbers.ts';

/** An error answer: `{ error, error_description? }` with this status (and headers). */
export interface MastodonError {
  status: number;
  error: string;
  description?: string;
  headers?: Record<string, string>;
}

export type MastodonScript =
  /** The next `times` calls (to `path` if given) answer this error. */
  | { error: MastodonError; path?: string; times?: number }
  /** The next `times` calls (to `path` if given) get their connection dropped. */
  | { drop: true; path?: string; times?: number }
  /** The next call to `path` is acted on, then its connection dropped (no answer). */
  | { dropAfterCreate: true; path?: string; times?: number };

export interface MastodonApp {
  name: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string;
  scopes: string;
  website: string | null;
}

export interface MastodonMedia {
  id: string;
  type: 'image' | 'video';
  bytes: number;
  contentType: string | null;
  /** Status polls left before the media is ready (0: ready). */
  pollsLeft: number;
}

export interface MastodonStatus {
  id: string;
  status: string;
  mediaIds: string[];
  inReplyToId: string | null;
  visibility: string;
  idempotencyKey: string | null;
  url: string;
  /** ISO time it was made (a status a test pushed without one: now, whenever shown). */
  createdAt?: string;
}

export interface FakeMastodonOptions {
  /** `configuration.statuses.max_characters` (default 500): longer statuses are 422. */
  maxCharacters?: number;
  /** GET /api/v1/media/:id answers 206 this many times for a video (default 1). */
  videoProcessingPolls?: number;
  /** Statuses allowed before 429 with X-RateLimit-* headers (default: no limit). */
  statusLimit?: number;
  /**
   * Deletes allowed before 429 with X-RateLimit-* headers, the reset 30 minutes on (Mastodon
   * allows 30 deletes per 30 minutes; default: no limit).
   */
  deleteLimit?: number;
}

export interface FakeMastodon extends FakeServer {
  /** Apps registered so far (POST /api/v1/apps), in order. */
  apps: MastodonApp[];
  /** One OAuth provider per registered app, by client id. */
  oauth: Map<string, FakeOAuthProvider>;
  /** Who consents: verify_credentials answers it. */
  account: { id: string; username: string; acct: string; display_name: string };
  script(step: MastodonScript): void;
  /** Further calls with this access token answer 401. */
  expireAccessToken(token: string): void;
  statuses: MastodonStatus[];
  media: Map<string, MastodonMedia>;
  /** The instance's status length (mutable). */
  maxCharacters: number;
  /**
   * GET /api/v1/statuses/:id (mastodon-metrics.ts): per-status counts under Mastodon's names
   * (null: left out); setting some makes the status exist (public), `remove` makes it 404.
   */
  counts: PostNumbers<MastodonCount>;
  /**
   * The scopes of a token the fake did not issue (default: read and write, everything); the
   * ones it issued hold what was consented.
   */
  tokenScopes: Map<string, string[]>;
  /**
   * Replies by other accounts (mastodon-comments.ts): `addReply(statusId, text)` makes one, and
   * GET /api/v1/statuses/:id/context shows it with ours.
   */
  addReply(inReplyToId: string, text: string): MastodonForeignStatus;
  foreignStatuses: MastodonForeignStatus[];
}

const SCOPES = ['read', 'write', 'read:accounts', 'write:statuses', 'write:media'];

export async function startFakeMastodon(options: FakeMastodonOptions = {}): Promise<FakeMastodon> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<MastodonScript>();
  const expired = new Set<string>();
  const apps: MastodonApp[] = [];
  const providers = new Map<string, FakeOAuthProvider>();
  const statuses: MastodonStatus[] = [];
  const media = new Map<string, MastodonMedia>();
  /** Idempotency-Key (per token) -> the status it made. */
  const byKey = new Map<string, MastodonStatus>();
  const account = {
    id: '109000000000000001',
    username: 'fake',
    acct: 'fake',
    display_name: 'Fake Account',
  };
  let sequence = 110_000_000_000_000_000n;
  const nextId = () => {
    sequence += 1n;
    return String(sequence);
  };
  const state = { maxCharacters: options.maxCharacters ?? 500 };
  let baseUrl = '';
  const reading = createMastodonReading(
    () => statuses,
    () => baseUrl,
  );
  const comments = createMastodonComments(
    () => statuses,
    account,
    nextId,
    () => baseUrl,
  );
  const tokenScopes = new Map<string, string[]>();
  const scopesOf = (token: string): string[] => {
    for (const provider of providers.values()) {
      const issued = provider.issued.find((tokens) => tokens.accessToken === token);
      if (issued) return issued.scopes;
    }
    return tokenScopes.get(token) ?? ['read', 'write'];
  };

  const refuse = (response: ServerResponse, e: MastodonError) =>
    sendJson(
      response,
      e.status,
      { error: e.error, ...(e.description ? { error_description: e.description } : {}) },
      e.headers ?? {},
    );

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request);
    const type = request.headers['content-type'] ?? '';
    const multipart = type.startsWith('multipart/');
    const body = multipart ? { bytes: raw.length } : parseBody(raw, type);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) return refuse(response, scripted.error);
    const path = url.pathname;

    if (path === '/api/v1/apps' && request.method === 'POST') return registerApp(response, fields);
    if (path === '/oauth/authorize') return authorize(response, url.searchParams);
    if (path === '/oauth/token' && request.method === 'POST') return token(response, fields);
    if (path === '/api/v2/instance' && request.method === 'GET') {
      return sendJson(response, 200, {
        domain: url.host,
        title: 'Fake Mastodon',
        configuration: {
          statuses: { max_characters: state.maxCharacters, max_media_attachments: 4 },
        },
      });
    }

    const accessToken = bearerToken(request.headers);
    const issued = [...providers.values()].some((p) => p.isValidAccessToken(accessToken));
    const statusMatch = /^\/api\/v1\/statuses\/([^/]+)$/.exec(path);
    if (statusMatch && request.method === 'GET' && !accessToken) {
      return answerStatus(response, reading.showStatus(statusMatch[1] ?? '', null));
    }
    if (!accessToken || expired.has(accessToken)) {
      return refuse(response, { status: 401, error: 'The access token is invalid' });
    }
    if (path === '/api/v1/accounts/verify_credentials' && request.method === 'GET') {
      if (!issued) return refuse(response, { status: 401, error: 'The access token is invalid' });
      return sendJson(response, 200, { ...account, url: `${baseUrl}/@${account.username}` });
    }
    if (path === '/api/v2/media' && request.method === 'POST') {
      return uploadMedia(response, raw, type);
    }
    const mediaMatch = /^\/api\/v1\/media\/([^/]+)$/.exec(path);
    if (mediaMatch && request.method === 'GET') return mediaStatus(response, mediaMatch[1] ?? '');
    if (path === '/api/v1/statuses' && request.method === 'POST') {
      const key = request.headers['idempotency-key'];
      const answered = postStatus(response, fields, typeof key === 'string' ? key : null, {
        accessToken,
        drop: Boolean(scripted && 'dropAfterCreate' in scripted),
      });
      if (answered === 'drop') dropConnection(request);
      return;
    }
    const contextMatch = /^\/api\/v1\/statuses\/([^/]+)\/context$/.exec(path);
    if (contextMatch && request.method === 'GET') {
      return answerStatus(response, comments.context(contextMatch[1] ?? ''));
    }
    if (statusMatch && request.method === 'DELETE') {
      return deleteStatus(response, statusMatch[1] ?? '', scopesOf(accessToken));
    }
    if (statusMatch && request.method === 'GET') {
      return answerStatus(
        response,
        reading.showStatus(statusMatch[1] ?? '', scopesOf(accessToken)),
      );
    }
    refuse(response, { status: 404, error: 'Record not found' });
  }

  const answerStatus = (response: ServerResponse, answer: ReturnType<typeof reading.showStatus>) =>
    answer.status === 200 && 'json' in answer
      ? sendJson(response, 200, answer.json)
      : refuse(response, answer as MastodonError);

  function registerApp(response: ServerResponse, fields: Record<string, unknown>) {
    const name = typeof fields.client_name === 'string' ? fields.client_name : '';
    const redirectUris = typeof fields.redirect_uris === 'string' ? fields.redirect_uris : '';
    if (name === '' || redirectUris === '') {
      return refuse(response, {
        status: 422,
        error: "Validation failed: Application name can't be blank, Redirect URI can't be blank",
      });
    }
    const app: MastodonApp = {
      name,
      clientId: randomBytes(16).toString('base64url'),
      clientSecret: randomBytes(24).toString('base64url'),
      redirectUris,
      scopes: typeof fields.scopes === 'string' ? fields.scopes : 'read',
      website: typeof fields.website === 'string' ? fields.website : null,
    };
    apps.push(app);
    providers.set(
      app.clientId,
      new FakeOAuthProvider({
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        pkce: 'optional',
        issueRefreshTokens: false,
      }),
    );
    sendJson(response, 200, {
      id: nextId(),
      name,
      website: app.website,
      redirect_uri: redirectUris,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      vapid_key: 'fake-vapid-key',
    });
  }

  function authorize(response: ServerResponse, q: URLSearchParams) {
    const provider = providers.get(q.get('client_id') ?? '');
    if (!provider) {
      return refuse(response, {
        status: 401,
        error: 'invalid_client',
        description: 'Client authentication failed due to unknown client.',
      });
    }
    const app = apps.find((a) => a.clientId === provider.options.clientId);
    const redirect = q.get('redirect_uri') ?? '';
    if (!app?.redirectUris.split('\n').includes(redirect)) {
      return refuse(response, {
        status: 400,
        error: 'invalid_redirect_uri',
        description: 'The redirect uri included is not valid.',
      });
    }
    const wanted = (q.get('scope') ?? '').split(/\s+/).filter((s) => s !== '');
    if (wanted.some((scope) => !SCOPES.includes(scope))) {
      return refuse(response, { status: 400, error: 'invalid_scope' });
    }
    answerConsent(response, provider.authorize(consentQueryOf(q)));
  }

  function token(response: ServerResponse, form: Record<string, unknown>) {
    const text = (key: string) => (typeof form[key] === 'string' ? (form[key] as string) : '');
    const provider = providers.get(text('client_id'));
    if (!provider) {
      return refuse(response, {
        status: 401,
        error: 'invalid_client',
        description: 'Client authentication failed due to unknown client.',
      });
    }
    if (text('grant_type') !== 'authorization_code') {
      return refuse(response, { status: 400, error: 'unsupported_grant_type' });
    }
    const answer = provider.exchangeCode({
      code: text('code'),
      clientId: text('client_id'),
      clientSecret: text('client_secret'),
      redirectUri: text('redirect_uri'),
      codeVerifier: text('code_verifier') || undefined,
    });
    if (!answer.ok) {
      return refuse(response, {
        status: answer.status,
        error: answer.error,
        description: answer.description,
      });
    }
    sendJson(response, 200, {
      access_token: answer.tokens.accessToken,
      token_type: 'Bearer',
      scope: answer.tokens.scopes.join(' '),
      created_at: Math.floor(Date.now() / 1000),
    });
  }

  function uploadMedia(response: ServerResponse, raw: Buffer, type: string) {
    const file = parseMultipart(raw, type).find((field) => field.name === 'file');
    if (!file)
      return refuse(response, { status: 422, error: 'Validation failed: File is missing' });
    const video = (file.contentType ?? '').startsWith('video/');
    const item: MastodonMedia = {
      id: nextId(),
      type: video ? 'video' : 'image',
      bytes: file.data.length,
      contentType: file.contentType,
      pollsLeft: video ? (options.videoProcessingPolls ?? 1) : 0,
    };
    media.set(item.id, item);
    sendJson(response, video ? 202 : 200, mediaJson(item));
  }

  function mediaStatus(response: ServerResponse, id: string) {
    const item = media.get(id);
    if (!item) return refuse(response, { status: 404, error: 'Record not found' });
    if (item.pollsLeft > 0) {
      item.pollsLeft -= 1;
      return sendJson(response, 206, mediaJson({ ...item, pollsLeft: 1 }));
    }
    sendJson(response, 200, mediaJson(item));
  }

  const mediaJson = (item: MastodonMedia) => ({
    id: item.id,
    type: item.type,
    url: item.pollsLeft > 0 ? null : `${baseUrl}/system/media/${item.id}`,
    preview_url: null,
    description: null,
  });

  function postStatus(
    response: ServerResponse,
    fields: Record<string, unknown>,
    key: string | null,
    call: { accessToken: string; drop: boolean },
  ): 'drop' | undefined {
    // Mastodon keeps a key per account for an hour: a repeat answers the first status as is.
    const keyed = key === null ? undefined : byKey.get(`${call.accessToken}/${key}`);
    if (keyed) {
      sendJson(response, 200, statusJson(keyed));
      return undefined;
    }
    const text = typeof fields.status === 'string' ? fields.status : '';
    const mediaIds = Array.isArray(fields.media_ids) ? fields.media_ids.map(String) : [];
    if (text === '' && mediaIds.length === 0) {
      refuse(response, { status: 422, error: "Validation failed: Text can't be blank" });
      return undefined;
    }
    if (Array.from(text).length > state.maxCharacters) {
      refuse(response, {
        status: 422,
        error: `Validation failed: Text character limit of ${state.maxCharacters} exceeded`,
      });
      return undefined;
    }
    for (const id of mediaIds) {
      const item = media.get(id);
      if (!item) {
        refuse(response, { status: 422, error: 'Validation failed: Media ids are invalid' });
        return undefined;
      }
      if (item.pollsLeft > 0) {
        refuse(response, {
          status: 422,
          error: 'Cannot attach files that have not finished processing. Try again in a moment!',
        });
        return undefined;
      }
    }
    const inReplyToId = typeof fields.in_reply_to_id === 'string' ? fields.in_reply_to_id : null;
    if (inReplyToId !== null && !comments.knows(inReplyToId)) {
      refuse(response, { status: 404, error: 'Record not found' });
      return undefined;
    }
    if (options.statusLimit !== undefined && statuses.length >= options.statusLimit) {
      const reset = new Date(Date.now() + 3 * 3600_000).toISOString();
      refuse(response, {
        status: 429,
        error: 'Too many requests',
        headers: {
          'x-ratelimit-limit': String(options.statusLimit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': reset,
        },
      });
      return undefined;
    }
    const id = nextId();
    const status: MastodonStatus = {
      id,
      status: text,
      mediaIds,
      inReplyToId,
      visibility: typeof fields.visibility === 'string' ? fields.visibility : 'public',
      idempotencyKey: key,
      url: `${baseUrl}/@${account.username}/${id}`,
      createdAt: new Date().toISOString(),
    };
    statuses.push(status);
    if (key !== null) byKey.set(`${call.accessToken}/${key}`, status);
    if (call.drop) return 'drop';
    sendJson(response, 200, statusJson(status));
    return undefined;
  }

  let deletes = 0;
  /**
   * DELETE /api/v1/statuses/:id: the status as it was, with its source `text` (for a redraft);
   * it is then gone (404 on a read, a second delete, a reply to it). Needs `write` or
   * `write:statuses`; an id it does not hold is 404 "Record not found".
   */
  function deleteStatus(response: ServerResponse, id: string, scopes: readonly string[]) {
    if (!scopes.some((scope) => scope === 'write' || scope === 'write:statuses')) {
      return refuse(response, {
        status: 403,
        error: 'This action is outside the authorized scopes',
      });
    }
    const index = statuses.findIndex((status) => status.id === id);
    const status = statuses[index];
    if (!status || reading.numbers.isGone(id)) {
      return refuse(response, { status: 404, error: 'Record not found' });
    }
    if (options.deleteLimit !== undefined && deletes >= options.deleteLimit) {
      return refuse(response, {
        status: 429,
        error: 'Too many requests',
        headers: {
          'x-ratelimit-limit': String(options.deleteLimit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': new Date(Date.now() + 30 * 60_000).toISOString(),
        },
      });
    }
    deletes += 1;
    statuses.splice(index, 1);
    reading.numbers.remove(id);
    sendJson(response, 200, { ...statusJson(status), text: status.status });
  }

  const statusJson = (status: MastodonStatus) => ({
    id: status.id,
    content: `<p>${status.status}</p>`,
    visibility: status.visibility,
    in_reply_to_id: status.inReplyToId,
    url: status.url,
    uri: status.url,
    media_attachments: status.mediaIds.map((id) => ({ id })),
    created_at: status.createdAt ?? new Date().toISOString(),
    account: { ...account, url: `${baseUrl}/@${account.username}` },
  });

  const server = await listen(handle);
  baseUrl = server.baseUrl;
  return {
    baseUrl,
    requests,
    close: server.close,
    apps,
    oauth: providers,
    account,
    script(step) {
      const path = step.path;
      scripts.add(
        step,
        (r: RecordedRequest) => path === undefined || r.path === path,
        step.times ?? 1,
      );
    },
    expireAccessToken: (token) => expired.add(token),
    statuses,
    media,
    get maxCharacters() {
      return state.maxCharacters;
    },
    set maxCharacters(value: number) {
      state.maxCharacters = value;
    },
    counts: reading.numbers,
    tokenScopes,
    addReply: (inReplyToId, text) => comments.addReply(inReplyToId, text),
    foreignStatuses: comments.foreign,
  };
}
