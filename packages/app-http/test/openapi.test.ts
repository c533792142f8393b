import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support.ts';

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
  ['post', '/posts/queue'],
  ['get', '/post-series/{id}'],
  ['delete', '/post-series/{id}'],
  ['put', '/social-accounts/{id}/slots'],
  ['get', '/social-accounts/{id}/slots'],
  ['post', '/api-keys'],
  ['get', '/api-keys'],
  ['delete', '/api-keys/{id}'],
  ['get', '/webhooks'],
  ['post', '/webhooks'],
  ['patch', '/webhooks/{id}'],
  ['delete', '/webhooks/{id}'],
  ['get', '/webhooks/{id}/deliveries'],
  ['post', '/webhooks/{id}/deliveries/{delivery_id}/redeliver'],
  ['post', '/social-accounts'],
  ['post', '/social-accounts/connect'],
  ['get', '/oauth/callback/{platform}'],
  ['get', '/oauth/authorize/{platform}'],
  ['get', '/social-accounts'],
  ['delete', '/social-accounts/{id}'],
  ['post', '/workspaces'],
  ['get', '/workspaces'],
  ['post', '/workspaces/{id}/members'],
  ['delete', '/workspaces/{id}/members/{user_id}'],
  ['get', '/health'],
  ['get', '/openapi.json'],
];

interface Operation {
  summary?: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
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
    const isPublic = path === '/health' || path === '/openapi.json' || path.startsWith('/oauth/');
    if (!isPublic) {
      expect(statuses).toEqual(expect.arrayContaining(['401', '429', '500']));
      expect(operation?.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
      const unauthorized = operation?.responses['401']?.content?.['application/json']?.schema;
      expect(JSON.stringify(unauthorized)).toContain('"code"');
    }
    // (POST /posts/import takes a CSV file as it streams: no JSON body schema.)
    if (
      ['post', 'patch'].includes(method) &&
      !path.endsWith('/redeliver') &&
      path !== '/posts/import'
    ) {
      expect(operation?.requestBody?.content['application/json']?.schema).toBeTruthy();
      expect(statuses).toEqual(expect.arrayContaining(['400', '413', '415']));
    }
    if (path.includes('{id}')) {
      expect(operation?.parameters?.some((p) => p.in === 'path' && p.name === 'id')).toBe(true);
    }
  });

  it('documents the Idempotency-Key header and the 503 of /health', () => {
    const create = doc.paths['/posts']?.post;
    expect(create?.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'idempotency-key' })]),
    );
    expect(Object.keys(doc.paths['/health']?.get?.responses ?? {})).toEqual(['200', '503']);
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
