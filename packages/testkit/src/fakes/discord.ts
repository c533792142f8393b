// A local Discord webhook API: `GET` and `POST /api[/v<n>]/webhooks/<id>/<token>[?wait=true]`,
// JSON or multipart (`payload_json` + `files[n]`). Errors are `{ message, code, errors? }`; a
// 429 carries `retry_after` (seconds) in the body and Retry-After / X-RateLimit-* headers.
import { randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
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

/** An error answer. */
export interface DiscordApiError {
  status: number;
  message: string;
  code?: number;
  errors?: unknown;
  /** Seconds (429): in the body and as Retry-After. */
  retryAfter?: number;
}

export type DiscordScript =
  /** The next `times` webhook calls (`on`: only GETs or only executions) answer this error. */
  | { error: DiscordApiError; on?: DiscordCall; times?: number }
  /** The next `times` calls get their connection dropped. */
  | { drop: true; on?: DiscordCall; times?: number }
  /** The next execution is acted on (the message posted), then its connection dropped. */
  | { dropAfterSend: true; on?: DiscordCall; times?: number };

/** `get`: reading the webhook (connect); `execute`: posting a message. */
export type DiscordCall = 'get' | 'execute';

export interface DiscordWebhook {
  id: string;
  token: string;
  name: string;
  channelId: string;
  /** null: a webhook outside any server (none are, in practice). */
  guildId: string | null;
  /** 1 incoming, 2 channel follower, 3 application. */
  type: number;
}

export interface DiscordAttachment {
  filename: string;
  contentType: string | null;
  size: number;
  /** The bytes are exactly the media server's pattern (streamed, not corrupted). */
  patternOk: boolean;
}

export interface DiscordMessage {
  id: string;
  webhookId: string;
  channelId: string;
  content: string;
  username: string | null;
  attachments: DiscordAttachment[];
}

export interface FakeDiscordOptions {
  /** Executions allowed per webhook before each answers 429 (default unlimited). */
  messageLimit?: number;
  /** The `retry_after` of that 429 (default 1.5 seconds). */
  retryAfterSeconds?: number;
}

export interface FakeDiscord extends FakeServer {
  /** The webhook of the fake's one channel. */
  webhook: DiscordWebhook;
  webhooks: DiscordWebhook[];
  /** `<baseUrl>/api/webhooks/<id>/<token>` of `webhook` (default: the fake's one). */
  webhookUrl(webhook?: DiscordWebhook): string;
  /** Further calls to this webhook answer 404 Unknown Webhook. */
  deleteWebhook(id: string): void;
  messages: DiscordMessage[];
  /** Mutable: past this many messages per webhook, executions answer 429. */
  messageLimit: number | undefined;
  script(step: DiscordScript): void;
}

const MAX_CONTENT = 2000;
const MAX_FILES = 10;
const snowflake = () =>
  `${(BigInt(Date.now() - 1420070400000) << 22n) | BigInt(randomInt(1 << 22))}`;

const formError = (field: string, code: string, message: string): DiscordApiError => ({
  status: 400,
  code: 50035,
  message: 'Invalid Form Body',
  errors: { [field]: { _errors: [{ code, message }] } },
});

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const requests: RecordedRequest[] = [];
  const scripts = new ScriptQueue<DiscordScript>();
  const webhook: DiscordWebhook = {
    id: '1200000000000000001',
    token: 'fake-webhook-token_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ',
    name: 'Fake Publisher',
    channelId: '1100000000000000002',
    guildId: '1000000000000000003',
    type: 1,
  };
  const webhooks = [webhook];
  const deleted = new Set<string>();
  const messages: DiscordMessage[] = [];
  const state = { messageLimit: options.messageLimit };

  type Answer = { status: 200 | 204; json?: unknown } | DiscordApiError;

  const webhookJson = (hook: DiscordWebhook) => ({
    application_id: null,
    avatar: null,
    channel_id: hook.channelId,
    guild_id: hook.guildId,
    id: hook.id,
    name: hook.name,
    type: hook.type,
    token: hook.token,
  });

  /** The message of an execution: JSON, or multipart with `payload_json` and files. */
  function inputOf(
    request: IncomingMessage,
    raw: Buffer,
  ): { payload: Record<string, unknown>; files: DiscordAttachment[] } | DiscordApiError {
    const type = request.headers['content-type'] ?? '';
    if (!type.toLowerCase().startsWith('multipart/form-data')) {
      const body = parseBody(raw, type);
      if (typeof body !== 'object' || body === null) {
        return { status: 400, code: 50109, message: 'The request body contains invalid JSON.' };
      }
      return { payload: body as Record<string, unknown>, files: [] };
    }
    const parts = parseMultipart(raw, type);
    const json = parts.find((part) => part.name === 'payload_json');
    let payload: Record<string, unknown> = {};
    if (json) {
      try {
        payload = JSON.parse(json.data.toString('utf8')) as Record<string, unknown>;
      } catch {
        return { status: 400, code: 50109, message: 'The request body contains invalid JSON.' };
      }
    }
    const files = parts
      .filter((part) => /^files\[\d+\]$/.test(part.name))
      .map((part) => ({
        filename: part.filename ?? part.name,
        contentType: part.contentType,
        size: part.data.length,
        patternOk: matchesPattern(part.data, 0),
      }));
    return { payload, files };
  }

  function execute(
    hook: DiscordWebhook,
    request: IncomingMessage,
    raw: Buffer,
    wait: boolean,
  ): Answer {
    if (hook.type !== 1) {
      return { status: 403, code: 50013, message: 'Missing Permissions' };
    }
    const input = inputOf(request, raw);
    if ('status' in input) return input;
    const { payload, files } = input;
    const content = typeof payload.content === 'string' ? payload.content : '';
    if (Array.from(content).length > MAX_CONTENT) {
      return formError('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
    }
    if (files.length > MAX_FILES) {
      return formError('files', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
    }
    if (content.trim() === '' && files.length === 0) {
      return { status: 400, code: 50006, message: 'Cannot send an empty message' };
    }
    const sent = messages.filter((message) => message.webhookId === hook.id).length;
    if (state.messageLimit !== undefined && sent >= state.messageLimit) {
      return {
        status: 429,
        message: 'You are being rate limited.',
        retryAfter: options.retryAfterSeconds ?? 1.5,
      };
    }
    const username = typeof payload.username === 'string' ? payload.username : null;
    const message: DiscordMessage = {
      id: snowflake(),
      webhookId: hook.id,
      channelId: hook.channelId,
      content,
      username,
      attachments: files,
    };
    messages.push(message);
    if (!wait) return { status: 204 };
    return {
      status: 200,
      json: {
        id: message.id,
        type: 0,
        content,
        channel_id: hook.channelId,
        author: { bot: true, id: hook.id, username: username ?? hook.name },
        attachments: files.map((file, index) => ({
          id: `${message.id}${index}`,
          filename: file.filename,
          size: file.size,
          content_type: file.contentType,
          url: `https://cdn.discordapp.com/attachments/${hook.channelId}/${message.id}/${file.filename}`,
        })),
        embeds: [],
        mentions: [],
        pinned: false,
        timestamp: new Date().toISOString(),
        webhook_id: hook.id,
      },
    };
  }

  function route(request: IncomingMessage, url: URL, raw: Buffer): Answer {
    const match = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([^/]+)\/?$/.exec(url.pathname);
    if (!match) return { status: 404, code: 0, message: '404: Not Found' };
    const hook = webhooks.find((candidate) => candidate.id === match[1]);
    if (!hook || deleted.has(hook.id)) {
      return { status: 404, code: 10015, message: 'Unknown Webhook' };
    }
    if (hook.token !== match[2])
      return { status: 401, code: 50027, message: 'Invalid Webhook Token' };
    if (request.method === 'GET') return { status: 200, json: webhookJson(hook) };
    if (request.method === 'POST') {
      return execute(hook, request, raw, url.searchParams.get('wait') === 'true');
    }
    return { status: 405, code: 0, message: '405: Method Not Allowed' };
  }

  function answer(response: ServerResponse, result: Answer): void {
    if (result.status === 204) {
      response.writeHead(204);
      response.end();
      return;
    }
    if (result.status === 200) {
      sendJson(response, 200, (result as { json?: unknown }).json);
      return;
    }
    const failure = result as DiscordApiError;
    const retry = failure.retryAfter;
    sendJson(
      response,
      failure.status,
      {
        message: failure.message,
        code: failure.code ?? 0,
        ...(failure.errors ? { errors: failure.errors } : {}),
        ...(retry === undefined ? {} : { retry_after: retry, global: false }),
      },
      retry === undefined
        ? {}
        : {
            'retry-after': String(Math.ceil(retry)),
            'x-ratelimit-limit': '5',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset-after': String(retry),
            'x-ratelimit-scope': 'user',
          },
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL) {
    const raw = await readBody(request, 120 * 1024 * 1024);
    const multipart = (request.headers['content-type'] ?? '').startsWith('multipart/');
    const body = multipart
      ? { bytes: raw.length }
      : parseBody(raw, request.headers['content-type']);
    const recorded = record(request, url, body);
    requests.push(recorded);
    const scripted = scripts.take(recorded);
    if (scripted && 'drop' in scripted) return dropConnection(request);
    if (scripted && 'error' in scripted) return answer(response, scripted.error);
    const result = route(request, url, raw);
    if (scripted && 'dropAfterSend' in scripted) return dropConnection(request);
    return answer(response, result);
  }

  const server = await listen(handle);
  return {
    baseUrl: server.baseUrl,
    requests,
    close: server.close,
    webhook,
    webhooks,
    webhookUrl: (hook = webhook) => `${server.baseUrl}/api/webhooks/${hook.id}/${hook.token}`,
    deleteWebhook: (id) => deleted.add(id),
    messages,
    get messageLimit() {
      return state.messageLimit;
    },
    set messageLimit(value: number | undefined) {
      state.messageLimit = value;
    },
    script: (step) =>
      scripts.add(
        step,
        (request) => step.on === undefined || (step.on === 'get') === (request.method === 'GET'),
        step.times ?? 1,
      ),
  };
}
