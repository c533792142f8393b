/**
 * Input found by a contract fuzzer, on the real databases (PostgreSQL and PGlite refuse U+0000,
 * unpaired surrogates and JSON nested too deep; the in-memory fakes do not): each is a 400 naming its
 * field, or the problem of its own post in a batch; never a 500. And a batch whose one post
 * fails unexpectedly records the others' results with its Idempotency-Key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Mode } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

const modes: Mode[] = ['production', 'embedded'];

interface ErrorJson {
  error: { code: string; details?: Array<{ field: string; message: string }> };
}

const fieldsOf = (body: unknown): string[] =>
  ((body as ErrorJson).error.details ?? []).map((problem) => problem.field);

describe.each(modes)('text the database cannot store, %s mode', (mode) => {
  const e2e = useSystem(mode);
  let accountId = '';

  beforeAll(async () => {
    if (e2e.skipReason()) return;
    const system = e2e.get();
    const account = await system.api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'twitter',
      sandbox: true,
      display_name: 'input',
    });
    accountId = account.body.data.id;
  }, 60_000);

  it('U+0000 and unpaired surrogates in any JSON text, value or key: 400 naming the field', async (context) => {
    const system = e2e.orSkip(context);
    const { api } = system;
    const post = { content: 'ok', social_account_ids: [accountId] };
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/workspaces', { name: 'team\u0000' }, 'name'],
      ['POST', '/api-keys', { name: 'key\u0000' }, 'name'],
      [
        'POST',
        '/social-accounts',
        { platform: 'twitter', sandbox: true, display_name: 'me\u0000' },
        'display_name',
      ],
      [
        'POST',
        '/webhooks',
        { url: 'https://hooks.example.com/\u0000', events: ['post.failed'] },
        'url',
      ],
      ['POST', '/posts', { ...post, content: 'hello\u0000' }, 'content'],
      ['POST', '/posts', { ...post, content: 'half a pair \ud83d' }, 'content'],
      [
        'POST',
        '/posts',
        { ...post, platform_options: { twitter: { note: 'x\u0000' } } },
        'platform_options.twitter.note',
      ],
      [
        'POST',
        '/posts',
        { ...post, platform_options: { twitter: { 'no\u0000te': 'x' } } },
        'platform_options.twitter.no\\u0000te',
      ],
      [
        'POST',
        '/posts',
        { ...post, platform_options: { twitter: { note: ['\udc00'] } } },
        'platform_options.twitter.note[0]',
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await api.call(method, path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(fieldsOf(response.body), path).toContain(field);
    }
    // JSON deeper than jsonb parses (PostgreSQL runs out of stack about 100,000 levels down).
    const depth = 100_000;
    const deep = await fetch(`${api.baseUrl}/posts`, {
      method: 'POST',
      headers: { authorization: api.authorization(), 'content-type': 'application/json' },
      body: `{"content":"deep","social_account_ids":["${accountId}"],"platform_options":{"twitter":{"note":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
    });
    expect(deep.status).toBe(400);
    expect(fieldsOf(await deep.json())[0]).toMatch(/^platform_options\.twitter\.note(\[0\])+$/);
    const query = await api.call('GET', '/posts?before=%00');
    expect(query.status).toBe(400);
    expect(fieldsOf(query.body)).toContain('before');
    // Nothing of the above was stored.
    const listed = await api.call<{ data: unknown[] }>('GET', '/posts');
    expect(listed.body.data).toEqual([]);
  });

  it('in a batch, the post is refused in its own result; /posts/validate and CSV name it too', async (context) => {
    const system = e2e.orSkip(context);
    const { api } = system;
    const good = { content: 'good', social_account_ids: [accountId] };
    const bulk = await api.call<{
      data: { results: Array<{ status: number; error?: ErrorJson['error'] }> };
    }>('POST', '/posts/bulk', {
      posts: [good, { ...good, platform_options: { twitter: { note: '\u0000' } } }],
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.results.map((result) => result.status)).toEqual([201, 400]);
    expect(fieldsOf(bulk.body.data.results[1])).toEqual(['platform_options.twitter.note']);

    const validate = await api.call<{ data: { valid: boolean; problems: unknown[] } }>(
      'POST',
      '/posts/validate',
      { ...good, content: 'a\u0000b' },
    );
    expect(validate.status).toBe(200);
    expect(validate.body.data.valid).toBe(false);
    expect(fieldsOf({ error: { details: validate.body.data.problems } })).toEqual(['content']);

    const file = `content,social_account_ids\nfine,${accountId}\n"nul \u0000 here",${accountId}\n`;
    const csv = await fetch(`${api.baseUrl}/posts/import`, {
      method: 'POST',
      headers: { authorization: api.authorization(), 'content-type': 'text/csv' },
      body: file,
    });
    expect(csv.status).toBe(200);
    const imported = (await csv.json()) as {
      data: { results: Array<{ status: number; error?: ErrorJson['error'] }> };
    };
    expect(imported.data.results.map((result) => result.status)).toEqual([201, 400]);
    expect(fieldsOf(imported.data.results[1])).toEqual(['content']);
  });

  it('a post of a bulk failing unexpectedly: the others are recorded with the key, a retry creates nothing twice', async (context) => {
    const system = e2e.orSkip(context);
    const { api, deps } = system;
    const posts = deps.repos.posts;
    const insert = posts.insert;
    posts.insert = async (post) => {
      if (post.content === 'explode') throw new Error('the database went away mid-insert');
      return insert.call(posts, post);
    };
    try {
      const body = {
        posts: [
          { content: 'survivor', social_account_ids: [accountId] },
          { content: 'explode', social_account_ids: [accountId] },
        ],
      };
      const key = { 'idempotency-key': `half-${mode}` };
      const first = await api.call<{ data: { results: Array<{ status: number }> } }>(
        'POST',
        '/posts/bulk',
        body,
        key,
      );
      expect(first.status).toBe(200);
      expect(first.body.data.results.map((result) => result.status)).toEqual([201, 500]);
      const again = await api.call('POST', '/posts/bulk', body, key);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const listed = await api.call<{ data: Array<{ content: string }> }>('GET', '/posts');
      expect(listed.body.data.filter((post) => post.content === 'survivor')).toHaveLength(1);
    } finally {
      posts.insert = insert;
    }
  });
});
