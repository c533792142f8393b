// The reading half of the fake Mastodon instance: GET /api/v1/statuses/:id as Mastodon answers
// it: the status with favourites_count, reblogs_count and replies_count (what a test set, or
// derived from the id). As Mastodon does, a token must hold `read` or `read:statuses` (else 403
// "This action is outside the authorized scopes"); without a token only public and unlisted
// statuses are shown (others 404); a status it does not know, or a test removed, is 404.
import { PostNumbers } from './post-numbers.ts';

export const MASTODON_COUNTS = ['favourites_count', 'reblogs_count', 'replies_count'] as const;
export type MastodonCount = (typeof MASTODON_COUNTS)[number];

type Answer = { status: 200; json: unknown } | { status: number; error: string };

export function createMastodonReading(
  statuses: () => { id: string; visibility: string; url: string }[],
  baseUrl: () => string,
) {
  const numbers = new PostNumbers(MASTODON_COUNTS);

  /** GET /api/v1/statuses/:id; `scopes` null: asked without a token. */
  function showStatus(id: string, scopes: readonly string[] | null): Answer {
    if (scopes !== null && !scopes.some((scope) => scope === 'read' || scope === 'read:statuses')) {
      return { status: 403, error: 'This action is outside the authorized scopes' };
    }
    const created = statuses().find((status) => status.id === id);
    const exists = created !== undefined || numbers.has(id);
    if (!exists || numbers.isGone(id)) return { status: 404, error: 'Record not found' };
    const visibility = created?.visibility ?? 'public';
    if (scopes === null && visibility !== 'public' && visibility !== 'unlisted') {
      return { status: 404, error: 'Record not found' };
    }
    const url = created?.url ?? `${baseUrl()}/@fake/${id}`;
    return {
      status: 200,
      json: {
        id,
        visibility,
        url,
        uri: url,
        content: '<p>status</p>',
        created_at: new Date().toISOString(),
        ...numbers.present(id),
      },
    };
  }

  return { numbers, showStatus };
}
