/**
 * Cache-Control, on real storage in both modes: every answer carrying a secret shown once (a
 * raw API key, a webhook signing secret) says `no-store`, and the document says so for each
 * response schema that holds one; the public media route lets shared caches keep a media 5
 * minutes at most, so a deleted one does not live on in them.
 */
import { expect, it } from 'vitest';
import { call, created, inBothModes, type RuntimeApi } from './runtime-api.ts';
import { seedUser } from './support.ts';

interface OpenApiResponse {
  headers?: Record<string, { schema?: { const?: string } }>;
  content?: Record<string, { schema?: unknown }>;
}
interface OpenApi {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
}

// The eight bytes every PNG starts with (uploads are checked against their declared type).
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(1000, 7),
]);

/** Whether a (dereferenced enough) schema has a property named `name` at any depth. */
function holdsProperty(schema: unknown, name: string): boolean {
  if (Array.isArray(schema)) return schema.some((item) => holdsProperty(item, name));
  if (schema === null || typeof schema !== 'object') return false;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties && name in properties) return true;
  return Object.values(schema).some((value) => holdsProperty(value, name));
}

function defineScenarios(api: () => RuntimeApi) {
  it('POST /api-keys (personal and team keys) and POST /webhooks answer no-store', async () => {
    const alice = await seedUser(api().deps);
    const personal = await call<{ data: { key: string } }>(
      api(),
      'POST',
      '/api-keys',
      alice.rawKey,
      {
        name: 'ci',
      },
    );
    expect(personal.status).toBe(201);
    expect(personal.body.data.key).toMatch(/^sp_/);
    expect(personal.headers['cache-control']).toBe('no-store');

    const teamId = await created(api(), '/workspaces', alice.rawKey, { name: 'acme' });
    const team = await call(api(), 'POST', '/api-keys', alice.rawKey, {
      name: 'team ci',
      workspace_id: teamId,
    });
    expect(team.status).toBe(201);
    expect(team.headers['cache-control']).toBe('no-store');

    const webhook = await call<{ data: { secret: string } }>(
      api(),
      'POST',
      '/webhooks',
      alice.rawKey,
      { url: 'https://hooks.example.com/sp', events: ['post.published'] },
    );
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    expect(webhook.body.data.secret).toMatch(/^whsec_/);
    expect(webhook.headers['cache-control']).toBe('no-store');

    // Answers without a secret keep no such header: the listings show none.
    for (const url of ['/api-keys', '/webhooks']) {
      const listed = await call(api(), 'GET', url, alice.rawKey);
      expect(listed.status).toBe(200);
      expect(listed.body).not.toHaveProperty('data.0.key');
      expect(listed.body).not.toHaveProperty('data.0.secret');
    }
  });

  it('the document says no-store on every answer whose schema holds a key or a secret', async () => {
    const served = await api().app.inject({ method: 'GET', url: '/openapi.json' });
    const document = served.json() as OpenApi;
    const holding: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const schemas = Object.values(response.content ?? {}).map((media) => media.schema);
          // `key` is the raw API key (the listings show key_prefix only); `secret` a webhook's.
          if (!schemas.some((s) => holdsProperty(s, 'key') || holdsProperty(s, 'secret'))) continue;
          holding.push(`${method.toUpperCase()} ${path} ${status}`);
          expect(
            response.headers?.['Cache-Control']?.schema?.const,
            `${method} ${path} ${status}`,
          ).toBe('no-store');
        }
      }
    }
    expect(holding.sort()).toEqual(['POST /api-keys 201', 'POST /webhooks 201']);
  });

  it('/m/{name}: shared caches keep a media 5 minutes at most (GET, HEAD, a range)', async () => {
    const alice = await seedUser(api().deps);
    const uploaded = await api().app.inject({
      method: 'POST',
      url: '/media?filename=pixel.png',
      headers: { authorization: `Bearer ${alice.rawKey}`, 'content-type': 'image/png' },
      payload: PNG,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const { id, url } = uploaded.json().data as { id: string; url: string };
    const path = new URL(url).pathname;

    const whole = await api().app.inject({ method: 'GET', url: path });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(PNG)).toBe(true);
    const head = await api().app.inject({ method: 'HEAD', url: path });
    const part = await api().app.inject({
      method: 'GET',
      url: path,
      headers: { range: 'bytes=0-9' },
    });
    expect(part.statusCode).toBe(206);
    for (const answer of [whole, head, part]) {
      expect(answer.headers['cache-control']).toBe('public, max-age=300');
    }
    const document = (await api().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const read = (document as OpenApi).paths['/m/{name}']?.get?.responses;
    expect(read?.['200']?.headers?.['Cache-Control']?.schema?.const).toBe('public, max-age=300');

    // Deleted: gone here at once (and from shared caches within those 5 minutes).
    expect((await call(api(), 'DELETE', `/media/${id}`, alice.rawKey)).status).toBe(200);
    expect((await api().app.inject({ method: 'GET', url: path })).statusCode).toBe(404);
  });
}

await inBothModes('Cache-Control of secrets and of hosted media', defineScenarios);
