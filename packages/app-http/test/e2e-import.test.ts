/**
 * Issue's "done when" for bulk scheduling, end to end in both modes: a 1,000-row CSV with a few
 * bad rows returns exactly those rows' errors in a dry run, then an import creates the rest,
 * and every created post is published, none before its time.
 */
import { describe, expect, it } from 'vitest';
import { type Mode, waitFor } from './e2e/system.ts';
import { useSystem } from './e2e/use-system.ts';

const ROWS = 1_000;
/** Data rows (1-based) that are wrong on purpose, each in its own way. */
const BAD: Record<number, string> = {
  17: 'past',
  250: 'unknown-account',
  611: 'bad-json',
  999: 'too-long',
};

interface PostJson {
  id: string;
  status: string;
  scheduled_at: string;
  post_targets: Array<{ published_at: string | null }>;
}

const modes: Mode[] = ['production', 'embedded'];

describe.each(modes)('CSV import of 1,000 rows, %s mode', (mode) => {
  const e2e = useSystem(mode);

  it('dry run names exactly the bad rows; the import creates the rest; all publish on time', async (context) => {
    const system = e2e.orSkip(context);
    const { api } = system;
    const account = await api.call<{ data: { id: string } }>('POST', '/social-accounts', {
      platform: 'twitter',
      sandbox: true,
      display_name: 'import',
    });
    const id = account.body.data.id;
    // Far enough ahead that a slow machine still runs the dry run and the import before it.
    const start = Date.now() + 15_000;
    const lines = ['scheduled_at,content,social_account_ids,platform_options'];
    for (let row = 1; row <= ROWS; row++) {
      const at = new Date(start + (row % 20) * 100).toISOString();
      const kind = BAD[row];
      if (kind === 'past') lines.push(`2020-01-01T00:00:00Z,row ${row},${id},`);
      else if (kind === 'unknown-account')
        lines.push(`${at},row ${row},0190a5d2-7a3b-7c4d-8e5f-0123456789ab,`);
      else if (kind === 'bad-json') lines.push(`${at},row ${row},${id},{nope`);
      else if (kind === 'too-long') lines.push(`${at},${'x'.repeat(281)},${id},`);
      else lines.push(`${at},row ${row},${id},`);
    }
    const file = lines.join('\n');
    const send = (query: string) =>
      fetch(`${api.baseUrl}/posts/import${query}`, {
        method: 'POST',
        headers: { authorization: api.authorization(), 'content-type': 'text/csv' },
        body: file,
      });

    const began = Date.now();
    const dry = await send('?dry_run=true');
    expect(dry.status).toBe(200);
    const dryBody = (await dry.json()) as {
      data: {
        failed: number;
        results: Array<{ row: number; valid: boolean; problems: Array<{ field: string }> }>;
      };
    };
    const invalid = dryBody.data.results.filter((result) => !result.valid);
    expect(invalid.map((result) => result.row)).toEqual(Object.keys(BAD).map(Number));
    expect(invalid.map((result) => result.problems[0]?.field)).toEqual([
      'scheduled_at',
      'social_account_ids[0]',
      'platform_options',
      'content',
    ]);

    const dryMs = Date.now() - began;
    const imported = await send('');
    expect(imported.status).toBe(200);
    const body = (await imported.json()) as {
      data: {
        created: number;
        failed: number;
        results: Array<{ row: number; status: number; data?: PostJson }>;
      };
    };
    expect(body.data.created).toBe(ROWS - 4);
    expect(body.data.results.filter((r) => r.status !== 201).map((r) => r.row)).toEqual(
      Object.keys(BAD).map(Number),
    );
    console.log(
      `[${mode}] 1,000-row CSV: dry run ${dryMs} ms, import ${Date.now() - began - dryMs} ms`,
    );
    const ids = new Set(body.data.results.flatMap((r) => (r.data ? [r.data.id] : [])));

    const posts = await waitFor(
      'every imported post published',
      async () => {
        const listed = await api.call<{ data: PostJson[] }>('GET', '/posts');
        const mine = listed.body.data.filter((post) => ids.has(post.id));
        return mine.length === ids.size && mine.every((post) => post.status === 'published')
          ? mine
          : null;
      },
      90_000,
      500,
    );
    for (const post of posts) {
      const publishedAt = Date.parse(post.post_targets[0]?.published_at ?? '');
      expect(publishedAt).toBeGreaterThanOrEqual(Date.parse(post.scheduled_at));
    }
  }, 150_000);
});
