// GET /posts without limit writes its body with JSON.stringify instead of the route schema's
// compiled serializer (a flat string for a response that can be megabytes): the bytes must be
// those the schema's serializer writes, which the paged form (limit) still uses.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, FUTURE, type Harness, seedConnection } from './support.ts';

let h: Harness;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

describe('GET /posts without limit', () => {
  it('writes the same bytes as the schema serializer of the paged form', async () => {
    const twitter = await seedConnection(h.deps, h.alice.user.id, 'twitter');
    const tiktok = await seedConnection(h.deps, h.alice.user.id, 'tiktok');
    const linkedin = await seedConnection(h.deps, h.alice.user.id, 'linkedin');
    const payloads = [
      { content: 'plain', social_account_ids: [twitter.id] },
      {
        // Quotes, backslashes, control and line-separator characters, an emoji (unpaired surrogates are refused at create).
        content: 'a "quote", a \\ backslash,\ta tab, \u2028 \u2029 \u0007 🎉 end',
        social_account_ids: [twitter.id],
        thread: [{ content: 'second part' }, { content: 'third </script>' }],
      },
      {
        content: 'with a first comment',
        social_account_ids: [linkedin.id],
        first_comment: 'first',
      },
      {
        content: 'scheduled video',
        social_account_ids: [tiktok.id],
        media_urls: ['https://cdn.example.com/v.mp4'],
        scheduled_at: FUTURE,
        platform_options: { tiktok: { tiktokPrivacy: 'SELF_ONLY' } },
      },
      {
        content: 'two targets',
        social_account_ids: [twitter.id, tiktok.id],
        media_urls: ['https://cdn.example.com/w.mp4'],
      },
    ];
    for (const payload of payloads) {
      const created = await h.call({
        method: 'POST',
        url: 'scheduled_at' in payload ? '/posts/schedule' : '/posts',
        headers: h.as(h.alice),
        payload,
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    const all = await h.call({ method: 'GET', url: '/posts', headers: h.as(h.alice) });
    const paged = await h.call({ method: 'GET', url: '/posts?limit=100', headers: h.as(h.alice) });
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toBe(paged.headers['content-type']);
    expect(all.json().data).toHaveLength(payloads.length);
    expect(paged.body.endsWith(',"next_cursor":null}')).toBe(true);
    expect(all.body).toBe(`${paged.body.slice(0, -',"next_cursor":null}'.length)}}`);
  });
});
