// The reading half of the fake TikTok API: POST /v2/video/query/?fields=… with
// `{ filters: { video_ids } }` (1 to 20) as TikTok answers it: `{ data: { videos, cursor,
// has_more }, error: { code: 'ok' } }`, each video with the fields asked. It needs the
// video.list scope (scope_not_authorized otherwise); a video it does not know, or a test
// removed, is left out of `videos`. Published videos (PUBLISH_COMPLETE) exist with derived counts.
import { PostNumbers } from './post-numbers.ts';

export const TIKTOK_COUNTS = ['view_count', 'like_count', 'comment_count', 'share_count'] as const;
export type TiktokCount = (typeof TIKTOK_COUNTS)[number];

const VIDEO_FIELDS = new Set([
  'id',
  'create_time',
  'cover_image_url',
  'share_url',
  'video_description',
  'duration',
  'height',
  'width',
  'title',
  'embed_html',
  'embed_link',
  ...TIKTOK_COUNTS,
]);
const QUERY_MAX_IDS = 20;

/** What the query answers: the `data`, or an error code and message. */
type Answer = { data: unknown } | { error: string; message: string };

export function createTiktokReading(publishedIds: () => string[]) {
  const numbers = new PostNumbers(TIKTOK_COUNTS);
  const exists = (id: string) =>
    !numbers.isGone(id) && (numbers.has(id) || publishedIds().includes(id));

  function queryVideos(
    fieldsParam: string | null,
    body: unknown,
    scopes: readonly string[],
  ): Answer {
    if (!scopes.includes('video.list')) {
      return {
        error: 'scope_not_authorized',
        message: 'The user did not authorize the scope required for completing this request.',
      };
    }
    const fields = (fieldsParam ?? '').split(',').filter((field) => field !== '');
    if (fields.length === 0 || fields.some((field) => !VIDEO_FIELDS.has(field))) {
      return { error: 'invalid_params', message: `fields is invalid: ${fieldsParam}` };
    }
    const filters = (body as { filters?: { video_ids?: unknown } } | undefined)?.filters;
    const ids = filters?.video_ids;
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      ids.length > QUERY_MAX_IDS ||
      ids.some((id) => typeof id !== 'string')
    ) {
      return { error: 'invalid_params', message: 'filters.video_ids must hold 1 to 20 ids' };
    }
    const videos = (ids as string[]).filter(exists).map((id) => {
      const counts = numbers.present(id);
      return Object.fromEntries(
        fields.flatMap((field): [string, unknown][] => {
          if (field === 'id') return [['id', id]];
          if (field in counts) return [[field, counts[field as TiktokCount]]];
          if ((TIKTOK_COUNTS as readonly string[]).includes(field)) return [];
          return [
            [field, field === 'create_time' ? Math.floor(Date.now() / 1000) : `fake ${field}`],
          ];
        }),
      );
    });
    return { data: { videos, cursor: 0, has_more: false } };
  }

  return { numbers, queryVideos };
}
