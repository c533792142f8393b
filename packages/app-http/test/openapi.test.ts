import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectError, expectInvalid, type Harness } from './support.ts';

/** Every route of the API: every route of docs/api.md. */
export const ROUTES: Array<[method: string, path: string]> = [
  ['post', '/posts'],
  ['post', '/posts/schedule'],
  ['post', '/posts/validate'],
  ['post', '/posts/bulk'],
  ['post', '/posts/import'],
  ['get', '/posts'],
  ['get', '/posts/{id}'],
  ['delete', '/posts/{id}'],
  ['patch', '/posts/{id}'],
  ['post', '/posts/{id}/approve'],
  ['post', '/posts/{id}/reject'],
  ['post', '/posts/queue'],
  ['get', '/posts/{id}/metrics'],
  ['get', '/posts/{id}/metrics/history'],
  ['post', '/posts/{id}/metrics/refresh'],
  ['post', '/posts/{id}/unpublish'],
  ['get', '/posts/{id}/comments'],
  ['post', '/posts/{id}/comments/refresh'],
  ['get', '/inbox'],
  ['post', '/inbox/read'],
  ['post', '/comments/{id}/replies'],
  ['post', '/comments/{id}/hide'],
  ['delete', '/comments/{id}'],
  ['get', '/analytics/daily'],
  ['get', '/post-series/{id}'],
  ['delete', '/post-series/{id}'],
  ['put', '/social-accounts/{id}/slots'],
  ['get', '/social-accounts/{id}/slots'],
  ['post', '/api-keys'],
  ['get', '/api-keys'],
  ['delete', '/api-keys/{id}'],
  ['get', '/webhooks'],
  ['post', '/webhooks'],
  ['get', '/webhooks/{id}'],
  ['patch', '/webhooks/{id}'],
  ['delete', '/webhooks/{id}'],
  ['get', '/webhooks/{id}/deliveries'],
  ['post', '/webhooks/{id}/deliveries/{delivery_id}/redeliver'],
  ['post', '/social-accounts'],
  ['post', '/social-accounts/connect'],
  ['get', '/oauth/callback/{platform}'],
  ['get', '/oauth/authorize/{platform}'],
  ['get', '/social-accounts'],
  ['get', '/social-accounts/{id}'],
  ['delete', '/social-accounts/{id}'],
  ['post', '/workspaces'],
  ['get', '/workspaces'],
  ['patch', '/workspaces/{id}'],
  ['post', '/workspaces/{id}/members'],
  ['delete', '/workspaces/{id}/members/{user_id}'],
  ['post', '/media'],
  ['get', '/media'],
  ['get', '/media/{id}'],
  ['delete', '/media/{id}'],
  ['get', '/m/{name}'],
  ['get', '/health'],
  ['get', '/openapi.json'],
];

/** Every operation's operationId: the typed client and generated SDKs name methods after them. */
const OPERATION_IDS: Record<string, string> = {
  'post /posts': 'createPost',
  'post /posts/schedule': 'schedulePost',
  'post /posts/validate': 'validatePost',
  'post /posts/bulk': 'createPostsBulk',
  'post /posts/import': 'importPosts',
  'get /posts': 'listPosts',
  'get /posts/{id}': 'getPost',
  'patch /posts/{id}': 'updatePost',
  'post /posts/{id}/approve': 'approvePost',
  'post /posts/{id}/reject': 'rejectPost',
  'post /posts/queue': 'queuePost',
  'get /posts/{id}/metrics': 'getPostMetrics',
  'get /posts/{id}/metrics/history': 'getPostMetricsHistory',
  'post /posts/{id}/metrics/refresh': 'refreshPostMetrics',
  'post /posts/{id}/unpublish': 'unpublishPost',
  'get /posts/{id}/comments': 'listPostComments',
  'post /posts/{id}/comments/refresh': 'refreshPostComments',
  'get /inbox': 'listInbox',
  'post /inbox/read': 'markCommentsRead',
  'post /comments/{id}/replies': 'replyToComment',
  'post /comments/{id}/hide': 'hideComment',
  'delete /comments/{id}': 'deleteComment',
  'get /analytics/daily': 'getDailyAnalytics',
  'get /post-series/{id}': 'getPostSeries',
  'delete /post-series/{id}': 'stopPostSeries',
  'put /social-accounts/{id}/slots': 'putSocialAccountSlots',
  'get /social-accounts/{id}/slots': 'getSocialAccountSlots',
  'delete /posts/{id}': 'cancelPost',
  'post /api-keys': 'createApiKey',
  'get /api-keys': 'listApiKeys',
  'delete /api-keys/{id}': 'revokeApiKey',
  'get /webhooks': 'listWebhooks',
  'post /webhooks': 'createWebhook',
  'get /webhooks/{id}': 'getWebhook',
  'patch /webhooks/{id}': 'updateWebhook',
  'delete /webhooks/{id}': 'deleteWebhook',
  'get /webhooks/{id}/deliveries': 'listWebhookDeliveries',
  'post /webhooks/{id}/deliveries/{delivery_id}/redeliver': 'redeliverWebhookDelivery',
  'post /social-accounts': 'createSocialAccount',
  'post /social-accounts/connect': 'startConnect',
  'get /oauth/callback/{platform}': 'completeConnect',
  'get /oauth/authorize/{platform}': 'openConsent',
  'get /social-accounts': 'listSocialAccounts',
  'get /social-accounts/{id}': 'getSocialAccount',
  'delete /social-accounts/{id}': 'deleteSocialAccount',
  'post /workspaces': 'createWorkspace',
  'get /workspaces': 'listWorkspaces',
  'patch /workspaces/{id}': 'updateWorkspace',
  'post /workspaces/{id}/members': 'setWorkspaceMember',
  'delete /workspaces/{id}/members/{user_id}': 'removeWorkspaceMember',
  'post /media': 'uploadMedia',
  'get /media': 'listMedia',
  'get /media/{id}': 'getMedia',
  'delete /media/{id}': 'deleteMedia',
  'get /m/{name}': 'getPublicMedia',
  'get /health': 'getHealth',
  'get /openapi.json': 'getOpenApiDocument',
};

interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: {
    required?: boolean;
    content: Record<string, { schema: Record<string, unknown> }>;
  };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}

let h: Harness;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: object };
};

beforeAll(async () => {
  h = await createHarness();
  const response = await h.call({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  doc = response.json();
});
afterAll(() => h.close());

describe('GET /openapi.json', () => {
  it('is OpenAPI 3.1 with both credential schemes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'apiKeyHeader',
      'bearerAuth',
    ]);
  });

  it('lists every route, and nothing else', () => {
    const listed = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual(ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });

  it.each(ROUTES)('%s %s documents its success and error responses', (method, path) => {
    const operation = doc.paths[path]?.[method];
    expect(operation?.summary).toBeTruthy();
    const statuses = Object.keys(operation?.responses ?? {});
    expect(statuses.some((status) => status.startsWith('2'))).toBe(true);
    const isPublic =
      path === '/health' ||
      path === '/openapi.json' ||
      path.startsWith('/oauth/') ||
      path.startsWith('/m/');
    if (!isPublic) {
      expect(statuses).toEqual(expect.arrayContaining(['401', '429', '500']));
      expect(operation?.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
      const unauthorized = operation?.responses['401']?.content?.['application/json']?.schema;
      expect(JSON.stringify(unauthorized)).toContain('"code"');
    }
    // (POST /posts/import and POST /media take a file as it streams: no JSON body schema;
    // redeliver, a metrics or comments refresh and an approval take no body at all.)
    if (
      ['post', 'patch'].includes(method) &&
      !path.endsWith('/redeliver') &&
      !path.endsWith('/metrics/refresh') &&
      !path.endsWith('/approve') &&
      !path.endsWith('/comments/refresh') &&
      path !== '/posts/import' &&
      path !== '/media'
    ) {
      expect(operation?.requestBody?.content['application/json']?.schema).toBeTruthy();
      expect(statuses).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
    if (path.includes('{id}')) {
      expect(operation?.parameters?.some((p) => p.in === 'path' && p.name === 'id')).toBe(true);
    }
  });

  it('every operation has its stable operationId', () => {
    const found = Object.fromEntries(
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => [
          `${method} ${path}`,
          operation.operationId,
        ]),
      ),
    );
    expect(found).toEqual(OPERATION_IDS);
  });

  it('documents the empty values the server refuses (cursors, a reply, a first comment, days)', () => {
    const param = (path: string, name: string) =>
      (
        doc.paths[path]?.get?.parameters as
          | Array<{ name: string; schema: Record<string, unknown> }>
          | undefined
      )?.find((p) => p.name === name)?.schema;
    for (const [path, name] of [
      ['/posts', 'before'],
      ['/media', 'before'],
      ['/inbox', 'cursor'],
      ['/posts/{id}/comments', 'cursor'],
      ['/posts/{id}/metrics/history', 'before'],
    ] as const) {
      expect(param(path, name), `${path} ${name}`).toMatchObject({ minLength: 1 });
    }
    expect(param('/analytics/daily', 'from')).toMatchObject({ pattern: expect.any(String) });
    const body = (path: string, method: 'post') =>
      doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema as {
        properties: Record<string, Record<string, unknown>>;
      };
    expect(body('/comments/{id}/replies', 'post').properties.text).toMatchObject({ minLength: 1 });
    expect(body('/posts', 'post').properties.first_comment).toMatchObject({ minLength: 1 });
  });

  it('a body that may be left out is not required (POST /posts/{id}/unpublish); the others are', () => {
    expect(doc.paths['/posts/{id}/unpublish']?.post?.requestBody).toMatchObject({
      required: false,
    });
    expect(JSON.stringify(doc)).not.toContain('x-optional-body');
    expect(doc.paths['/posts']?.post?.requestBody).toMatchObject({ required: true });
  });

  it('POST /posts/import documents its CSV body; the callback its HTML answers', () => {
    const importBody = doc.paths['/posts/import']?.post?.requestBody?.content ?? {};
    expect(Object.keys(importBody).sort()).toEqual(['application/csv', 'text/csv']);
    expect(importBody['text/csv']?.schema).toMatchObject({ type: 'string' });
    const callback = doc.paths['/oauth/callback/{platform}']?.get?.responses ?? {};
    expect(Object.keys(callback['200']?.content ?? {})).toEqual(['text/html']);
    expect(Object.keys(callback['400']?.content ?? {}).sort()).toEqual([
      'application/json',
      'text/html',
    ]);
    expect(callback['302']?.content).toBeUndefined();
  });

  it('POST /media documents its raw and multipart bodies; /m/{name} its bytes', () => {
    const upload = doc.paths['/media']?.post;
    expect(Object.keys(upload?.requestBody?.content ?? {}).sort()).toEqual([
      'image/jpeg',
      'image/png',
      'image/webp',
      'multipart/form-data',
      'video/mp4',
      'video/quicktime',
    ]);
    expect(Object.keys(upload?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '413', '415']),
    );
    const read = doc.paths['/m/{name}']?.get;
    expect(read?.security).toEqual([]);
    expect(Object.keys(read?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '206', '400', '404', '416']),
    );
    expect(Object.keys(read?.responses['206']?.content ?? {})).toContain('video/mp4');
  });

  it('the body schemas carry the rules across fields, and the server keeps them', async () => {
    const bodyOf = (method: string, path: string) =>
      doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema ?? {};
    for (const path of ['/posts', '/posts/schedule']) {
      expect(bodyOf('post', path).anyOf).toEqual([
        { required: ['social_account_ids'], properties: { social_account_ids: { minItems: 1 } } },
        { required: ['platforms'], properties: { platforms: { minItems: 1 } } },
      ]);
    }
    const noTarget = await h.call({
      method: 'POST',
      url: '/posts',
      headers: h.as(h.alice),
      payload: { content: 'x', platforms: [] },
    });
    expect(expectError(noTarget, 400, 'validation_failed').details).toEqual([
      {
        field: 'social_account_ids',
        message: 'at least one of social_account_ids or platforms is required (and not empty)',
      },
    ]);

    const connection = bodyOf('post', '/social-accounts');
    // (@fastify/swagger writes `const` as a one-value enum.)
    expect(connection.if).toEqual({
      properties: { sandbox: { enum: [true] } },
      required: ['sandbox'],
    });
    expect(connection.else).toEqual({ required: ['external_id', 'access_token'] });
    const noToken = await h.call({
      method: 'POST',
      url: '/social-accounts',
      headers: h.as(h.alice),
      payload: { platform: 'twitter', external_id: 'me', sandbox: false },
    });
    expect(expectError(noToken, 400, 'validation_failed').details).toEqual([
      { field: 'access_token', message: 'is required' },
    ]);

    const webhookUrl = (bodyOf('post', '/webhooks').properties as Record<string, object>).url;
    expect(webhookUrl).toMatchObject({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' });
    for (const url of ['not a url', 'ftp://hooks.example.com/x']) {
      const refused = await h.call({
        method: 'POST',
        url: '/webhooks',
        headers: h.as(h.alice),
        payload: { url, events: ['post.failed'] },
      });
      expectInvalid(refused, 'url');
    }
  });

  it('documents the Idempotency-Key header and the 503 of /health', () => {
    const create = doc.paths['/posts']?.post;
    expect(create?.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]),
    );
    // 431: what Node's parser answers any request whose line and headers are too large.
    expect(Object.keys(doc.paths['/health']?.get?.responses ?? {})).toEqual(['200', '431', '503']);
  });

  it('documents 431 on every operation, and the 404 of the OAuth routes, in the envelope', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        const responses = (operation as { responses: Record<string, unknown> }).responses;
        expect(responses['431'], `${method} ${path}`).toMatchObject({
          content: { 'application/json': { schema: { required: ['error'] } } },
        });
      }
    }
    for (const path of ['/oauth/authorize/{platform}', '/oauth/callback/{platform}']) {
      expect(doc.paths[path]?.get?.responses?.['404']).toMatchObject({
        content: { 'application/json': { schema: { required: ['error'] } } },
      });
    }
  });

  it('interactive docs are served at /docs', async () => {
    const response = await h.call({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(response.statusCode);
    const page =
      response.statusCode === 302
        ? await h.call({ method: 'GET', url: response.headers.location as string })
        : response;
    expect(page.body).toContain('swagger');
  });
});
