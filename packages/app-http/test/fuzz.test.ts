/**
 * Property: whatever a client sends (method, path, ids, query, headers, body), the API never
 * answers 5xx, and every 4xx carries the `{ error: { code, message, details? } }` envelope.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, FUTURE, type Harness, seedConnection, seedWorkspace } from './support.ts';

const RUNS = 1_500;

let h: Harness;
let ids: string[];
let credentials: string[];

beforeAll(async () => {
  h = await createHarness();
  const twitter = await seedConnection(h.deps, h.alice.user.id, 'twitter');
  const tiktok = await seedConnection(h.deps, h.alice.user.id, 'tiktok');
  const bobs = await seedConnection(h.deps, h.bob.user.id, 'youtube');
  const team = await seedWorkspace(h.deps, h.alice);
  const post = await h.call({
    method: 'POST',
    url: '/posts',
    headers: h.as(h.alice),
    payload: { content: 'seed', social_account_ids: [twitter.id] },
  });
  const webhook = await h.call({
    method: 'POST',
    url: '/webhooks',
    headers: h.as(h.alice),
    payload: { url: 'https://hooks.example.com/x', events: ['post.failed'] },
  });
  // A key the generated requests may revoke (not the keys they authenticate with).
  const spare = await h.call({
    method: 'POST',
    url: '/api-keys',
    headers: h.as(h.alice),
    payload: { name: 'spare' },
  });
  ids = [
    spare.json().data.id,
    twitter.id,
    tiktok.id,
    bobs.id,
    team.account.id,
    h.alice.user.id,
    h.bob.user.id,
    post.json().data.id,
    webhook.json().data.id,
  ];
  credentials = [h.alice.rawKey, h.bob.rawKey, team.rawTeamKey];
});
afterAll(() => h.close());

/** Built once the seeded ids exist. */
function requestArbitrary() {
  const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 40 });

  const idArb = () =>
    fc.oneof(
      fc.constantFrom(...ids),
      fc.uuid(),
      printable.map(encodeURIComponent),
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
      fc.constantFrom('', '%', '%zz', '..', '%2F', 'null', '-1', '0'.repeat(300), '%00'),
    );

  /** Every API route with its method (paths as in Fastify). */
  const ROUTES: Array<[string, string]> = [
    ['POST', '/posts'],
    ['POST', '/posts/schedule'],
    ['GET', '/posts'],
    ['GET', '/posts/:id'],
    ['DELETE', '/posts/:id'],
    ['POST', '/posts/queue'],
    ['GET', '/post-series/:id'],
    ['DELETE', '/post-series/:id'],
    ['PUT', '/social-accounts/:id/slots'],
    ['GET', '/social-accounts/:id/slots'],
    ['POST', '/api-keys'],
    ['GET', '/api-keys'],
    ['DELETE', '/api-keys/:id'],
    ['GET', '/webhooks'],
    ['POST', '/webhooks'],
    ['PATCH', '/webhooks/:id'],
    ['DELETE', '/webhooks/:id'],
    ['GET', '/webhooks/:id/deliveries'],
    ['POST', '/webhooks/:id/deliveries/:delivery_id/redeliver'],
    ['POST', '/social-accounts'],
    ['GET', '/social-accounts'],
    ['DELETE', '/social-accounts/:id'],
    ['POST', '/workspaces'],
    ['GET', '/workspaces'],
    ['POST', '/workspaces/:id/members'],
    ['DELETE', '/workspaces/:id/members/:user_id'],
    ['GET', '/health'],
    ['GET', '/openapi.json'],
  ];

  const TEMPLATES = [
    '/posts',
    '/posts/schedule',
    '/posts/:id',
    '/posts/queue',
    '/post-series/:id',
    '/social-accounts/:id/slots',
    '/api-keys',
    '/api-keys/:id',
    '/webhooks',
    '/webhooks/:id',
    '/webhooks/:id/deliveries',
    '/webhooks/:id/deliveries/:id/redeliver',
    '/social-accounts',
    '/social-accounts/:id',
    '/workspaces',
    '/workspaces/:id/members',
    '/workspaces/:id/members/:id',
    '/health',
    '/openapi.json',
    '/',
    '/:id',
    '/posts/:id/:id',
  ];

  const pathArb = fc
    .tuple(fc.constantFrom(...TEMPLATES), fc.array(idArb(), { minLength: 3, maxLength: 3 }))
    .map(([template, values]) => {
      let i = 0;
      return template.replace(/:id/g, () => values[i++] ?? '');
    });

  const queryValue = fc.oneof(
    fc.constantFrom(...ids),
    printable,
    fc.integer().map(String),
    fc.constantFrom('', 'true', '0', '1001', '-5', '1e3'),
  );
  const queryArb = fc
    .array(
      fc.tuple(
        fc.constantFrom('workspace_id', 'limit', 'x', '__proto__', 'constructor', 'limit[]'),
        queryValue,
      ),
      { maxLength: 3 },
    )
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`,
    );

  /** JSON-able values of any shape, biased towards the API's own field names. */
  const FIELDS = [
    'content',
    'social_account_ids',
    'platforms',
    'media_urls',
    'workspace_id',
    'platform_options',
    'scheduled_at',
    'recurrence',
    'rrule',
    'timezone',
    'slots',
    'day',
    'time',
    'name',
    'url',
    'events',
    'active',
    'platform',
    'external_id',
    'access_token',
    'refresh_token',
    'token_expires_at',
    'display_name',
    'user_id',
    'role',
    '__proto__',
    'constructor',
  ];
  const leaf = fc.oneof(
    fc.constantFrom(...ids),
    fc.constantFrom(
      'twitter',
      'tiktok',
      'youtube',
      'instagram',
      'post.failed',
      'owner',
      'SELF_ONLY',
      FUTURE,
      '2020-01-01T00:00:00Z',
      'https://cdn.example.com/a.mp4',
      'https://cdn.example.com/a.jpg',
      'http://10.0.0.1/x',
      'https://[::1]/',
    ),
    fc.string({ maxLength: 60 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  );
  const { value: jsonish } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(
        fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 12 })),
        tie('value'),
        {
          maxKeys: 5,
        },
      ),
    ),
  }));
  const bodyObject = fc.dictionary(fc.constantFrom(...FIELDS), jsonish, { maxKeys: 8 });

  const bodyArb: fc.Arbitrary<string | undefined> = fc.oneof(
    fc.constant(undefined),
    bodyObject.map((body) => JSON.stringify(body)),
    jsonish.map((body) => JSON.stringify(body) ?? 'null'),
    fc.string({ maxLength: 80 }),
    fc.constantFrom('{', '[1,', '{"a":1}}', '\u0000', '{"__proto__":{"polluted":1}}', '"\\ud800"'),
  );

  const headerValue = printable.filter((value) => value === value.trim());
  const headersArb = (bias: number) =>
    fc.record(
      {
        authorization: fc.oneof(
          { arbitrary: fc.constant('alice'), weight: bias * 4 },
          { arbitrary: fc.constant('team'), weight: bias },
          { arbitrary: fc.constant('bob'), weight: bias },
          { arbitrary: headerValue.map((v) => `Bearer ${v}`), weight: 1 },
          { arbitrary: headerValue, weight: 1 },
        ),
        'x-api-key': fc.oneof(fc.constant('alice'), headerValue),
        'content-type': fc.oneof(
          { arbitrary: fc.constant('application/json'), weight: bias * 5 },
          {
            arbitrary: fc.constantFrom(
              'application/json; charset=utf-8',
              'text/plain',
              'application/x-www-form-urlencoded',
              'application/jsonx',
              'application/json; charset=latin1',
              '',
              ';;',
            ),
            weight: 1,
          },
        ),
        'idempotency-key': headerValue,
        'x-request-id': headerValue,
        accept: fc.constantFrom('application/json', 'text/html', '*/*'),
      },
      { requiredKeys: bias > 1 ? ['authorization', 'content-type'] : [] },
    );

  /** Bodies that mostly pass the schemas, so the use cases see odd but well-typed values. */
  const rawId = fc.oneof(fc.constantFrom(...ids), fc.uuid(), printable);
  const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', ' ', 'x'.repeat(5001)));
  const when = fc.oneof(
    fc.constantFrom(
      FUTURE,
      '2020-01-01T00:00:00Z',
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00.001+14:00',
    ),
    fc
      .date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    printable,
  );
  const url = fc.oneof(
    fc.webUrl({ withQueryParameters: true }),
    fc.constantFrom(
      'https://cdn.example.com/v.mp4',
      'https://cdn.example.com/p.png',
      'https://127.0.0.1/a',
      'https://[fd00::1]/a',
      'https://0x7f.1/a',
      'https://user:pw@h.example.com/',
      'ftp://h.example.com/x',
      'https://',
    ),
    printable,
  );
  const platform = fc.constantFrom(
    'tiktok',
    'instagram',
    'youtube',
    'twitter',
    'linkedin',
    'facebook',
  );
  const postBody = {
    content: text,
    social_account_ids: fc.array(rawId, { maxLength: 4 }),
    platforms: fc.array(platform, { maxLength: 4 }),
    media_urls: fc.array(url, { maxLength: 3 }),
    workspace_id: rawId,
    platform_options: fc.oneof(
      fc.record(
        {
          tiktok: fc.record(
            {
              tiktokPrivacy: fc.constantFrom('SELF_ONLY', 'PUBLIC_TO_EVERYONE'),
              tiktokAllowDuet: fc.boolean(),
              tiktokIsAigc: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
          youtube: fc.record(
            { privacyStatus: fc.constantFrom('private', 'public') },
            { requiredKeys: [] },
          ),
          instagram: fc.dictionary(fc.string({ maxLength: 8 }), jsonish, { maxKeys: 3 }),
        },
        { requiredKeys: [] },
      ),
    ),
  };
  const SHAPED: Record<string, fc.Arbitrary<object>> = {
    'POST /posts': fc.record(postBody, { requiredKeys: [] }),
    'POST /posts/schedule': fc.record(
      {
        ...postBody,
        scheduled_at: when,
        recurrence: fc.record(
          {
            rrule: fc.oneof(
              fc.constantFrom(
                'FREQ=DAILY',
                'FREQ=WEEKLY;BYDAY=MO',
                'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
              ),
              text,
            ),
            timezone: fc.oneof(fc.constantFrom('UTC', 'Europe/Berlin', 'Etc/GMT+14'), text),
            count: fc.oneof(fc.integer(), fc.constant(null)),
            until: fc.oneof(when, fc.constant(null)),
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
    'POST /posts/queue': fc.record(postBody, { requiredKeys: [] }),
    'PUT /social-accounts/:id/slots': fc.record(
      {
        timezone: fc.oneof(fc.constantFrom('UTC', 'America/New_York'), text),
        slots: fc.array(
          fc.record({
            day: fc.oneof(fc.constantFrom('mon', 'sun'), text),
            time: fc.oneof(fc.constantFrom('09:00', '23:59', '24:00'), text),
          }),
          { maxLength: 5 },
        ),
      },
      { requiredKeys: [] },
    ),
    'POST /api-keys': fc.record({ name: text, workspace_id: rawId }, { requiredKeys: ['name'] }),
    'POST /webhooks': fc.record(
      {
        url,
        events: fc.subarray(['post.published', 'post.failed', 'post.partial']),
        workspace_id: rawId,
      },
      { requiredKeys: ['url', 'events'] },
    ),
    'PATCH /webhooks/:id': fc.record({ active: fc.boolean() }),
    'POST /social-accounts': fc.record(
      {
        platform,
        external_id: text,
        access_token: text,
        refresh_token: text,
        display_name: text,
        token_expires_at: when,
        workspace_id: rawId,
      },
      { requiredKeys: ['platform', 'external_id', 'access_token'] },
    ),
    'POST /workspaces': fc.record({ name: text }),
    'POST /workspaces/:id/members': fc.record({
      user_id: rawId,
      role: fc.oneof(fc.constantFrom('owner', 'admin', 'member'), printable),
    }),
  };

  /** Anything at all: any method on any path. */
  const randomRequest = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'),
    path: pathArb,
    query: queryArb,
    headers: headersArb(1),
    body: bodyArb,
  });

  /** A real route with its own method, mostly well authenticated: reaches the use cases. */
  const routedRequest = fc
    .record({
      route: fc.constantFrom(...ROUTES),
      ids: fc.array(idArb(), { minLength: 2, maxLength: 2 }),
      query: queryArb,
      headers: headersArb(4),
      body: fc.oneof(
        { arbitrary: bodyObject.map((body) => JSON.stringify(body)), weight: 4 },
        { arbitrary: bodyArb, weight: 1 },
      ),
    })
    .chain((request) => {
      const shaped = SHAPED[`${request.route[0]} ${request.route[1]}`];
      if (!shaped) return fc.constant(request);
      return fc
        .oneof(
          { arbitrary: shaped.map((b) => JSON.stringify(b)), weight: 3 },
          { arbitrary: fc.constant(request.body), weight: 1 },
        )
        .map((body) => ({ ...request, body }));
    })
    .map(({ route: [method, template], ids: values, query, headers, body }) => {
      let i = 0;
      const path = template.replace(/:\w+/g, () => values[i++] ?? '');
      return { method, path, query, headers, body };
    });

  const requestArb = fc.oneof(
    { arbitrary: routedRequest, weight: 3 },
    { arbitrary: randomRequest, weight: 1 },
  );
  return requestArb;
}

describe('fuzz: no input produces a 5xx', () => {
  it(`${RUNS} generated requests across every route`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArbitrary(), async (request) => {
        const headers: Record<string, string> = { ...request.headers };
        const named: Record<string, string | undefined> = {
          alice: credentials[0],
          bob: credentials[1],
          team: credentials[2],
        };
        if (headers.authorization && named[headers.authorization]) {
          headers.authorization = `Bearer ${named[headers.authorization]}`;
        }
        if (headers['x-api-key'] === 'alice') headers['x-api-key'] = credentials[0] ?? '';
        const response = await h.call({
          method: request.method as 'GET',
          url: `${request.path}${request.query}`,
          headers,
          ...(request.body === undefined || request.method === 'GET' || request.method === 'HEAD'
            ? {}
            : { payload: request.body }),
        });
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const where = `${request.method} ${request.path}${request.query} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
        if (response.statusCode >= 500) throw new Error(`5xx: ${where}`);
        if (response.statusCode >= 400 && request.method !== 'HEAD') {
          const body = JSON.parse(response.body) as { error?: Record<string, unknown> };
          const keys = Object.keys(body.error ?? {});
          const envelope =
            Object.keys(body).length === 1 &&
            typeof body.error?.code === 'string' &&
            typeof body.error.message === 'string' &&
            keys.every((key) => ['code', 'message', 'details'].includes(key)) &&
            (body.error.details === undefined || Array.isArray(body.error.details));
          if (!envelope) throw new Error(`not an error envelope: ${where}`);
        }
      }),
      { numRuns: RUNS },
    );
    // The generator reaches successes and many kinds of errors, not just one.
    const kinds = [...statuses.keys()];
    expect(kinds).toEqual(expect.arrayContaining([200, 201, 400, 401, 404]));
    expect(kinds.filter((status) => status >= 400).length).toBeGreaterThan(5);
  });
});
