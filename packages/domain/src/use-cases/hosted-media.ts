/**
 * Our own media among a post's URLs: checked against storage instead of being fetched (no SSRF
 * refusal for what we host), and linked to the post so they are neither deleted nor swept while
 * it is unfinished.
 */
import type { CoreDeps } from '../deps.ts';
import type { Problem } from '../errors.ts';
import type { Post } from '../model.ts';
import type { Repositories } from '../ports/index.ts';
import { hostedMediaName, hostedMediaNames } from '../rules/hosted-media.ts';

/** Every media URL of a post (main post and follow-ups) with its field path. */
export function mediaUrlFields(draft: {
  mediaUrls: readonly string[];
  thread?: ReadonlyArray<{ mediaUrls: readonly string[] }> | null;
}): Array<{ url: string; field: string }> {
  return [
    ...draft.mediaUrls.map((url, i) => ({ url, field: `media_urls[${i}]` })),
    ...(draft.thread ?? []).flatMap((part, j) =>
      part.mediaUrls.map((url, i) => ({ url, field: `thread[${j}].media_urls[${i}]` })),
    ),
  ];
}

export const MEDIA_NOT_FOUND =
  'media_not_found: no hosted media of this account has this URL (deleted, expired or never uploaded)';

/**
 * A problem for each of our URLs that names no live media of `accountId`: one that was
 * deleted, has expired, or belongs to another account reads the same (nothing is disclosed).
 */
export async function hostedMediaProblems(
  deps: CoreDeps,
  accountId: string,
  entries: ReadonlyArray<{ url: string; field: string }>,
): Promise<Problem[]> {
  const base = deps.settings.publicBaseUrl;
  const ours = entries.flatMap(({ url, field }) => {
    const name = hostedMediaName(base, url);
    return name === null ? [] : [{ name, field }];
  });
  if (ours.length === 0) return [];
  const found = await deps.repos.media.findByNames([...new Set(ours.map((o) => o.name))]);
  const now = deps.clock.now().getTime();
  const live = new Set(
    found
      .filter(
        (m) => m.accountId === accountId && (m.expiresAt === null || m.expiresAt.getTime() > now),
      )
      .map((m) => m.name),
  );
  return ours
    .filter(({ name }) => !live.has(name))
    .map(({ field }) => ({ field, message: MEDIA_NOT_FOUND }));
}

/** Whether `url` is one of ours (it is then checked against storage, never fetched). */
export function isHostedMediaUrl(deps: CoreDeps, url: string): boolean {
  return hostedMediaName(deps.settings.publicBaseUrl, url) !== null;
}

/** Records the post's use of our media (in `repos`: inside the caller's unit of work if any). */
export async function linkHostedMedia(
  deps: CoreDeps,
  repos: Repositories,
  post: Pick<Post, 'id' | 'mediaUrls' | 'thread'>,
): Promise<void> {
  const urls = mediaUrlFields(post).map(({ url }) => url);
  const names = hostedMediaNames(deps.settings.publicBaseUrl, urls);
  if (names.length > 0) await repos.media.link(post.id, names);
}
