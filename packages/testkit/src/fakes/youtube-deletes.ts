// The deleting half of the fake YouTube Data API: DELETE /youtube/v3/videos?id= and DELETE
// /youtube/v3/comments?id=, answered 204 as Google does; a video or comment it does not hold
// (never made, or deleted) is 404 videoNotFound / commentNotFound. A token this fake issued must
// carry youtube.force-ssl (or youtube) for either, as Google requires; 403
// insufficientPermissions otherwise.
import type { ServerResponse } from 'node:http';

/** The scopes that allow deletes (Videos: delete, Comments: delete). */
const DELETE_SCOPES = [
  'https://www.googleapis.com/auth/youtube.force-ssl',
  'https://www.googleapis.com/auth/youtube',
];

interface Refusal {
  status: number;
  reason: string;
  domain: string;
  message: string;
}

export interface YoutubeDeletesDeps {
  /** Ids of the videos uploaded so far (deleted ones included). */
  videoIds: () => string[];
  /** The statistics: a deleted video is removed there, so reads miss it. */
  numbers: { isGone(id: string): boolean; has(id: string): boolean; remove(id: string): void };
  /** Top-level comments made (by thread id); a deleted one is taken out. */
  comments: Array<{ id: string; videoId: string }>;
  /** The scopes of a token this fake issued; undefined for any other token (allowed). */
  scopesOf: (token: string) => string[] | undefined;
  refuse: (response: ServerResponse, error: Refusal) => void;
  noContent: (response: ServerResponse) => void;
}

export function createYoutubeDeletes(deps: YoutubeDeletesDeps) {
  const videoExists = (id: string) =>
    !deps.numbers.isGone(id) && (deps.numbers.has(id) || deps.videoIds().includes(id));

  function removeVideo(response: ServerResponse, id: string) {
    if (!videoExists(id)) {
      return deps.refuse(response, {
        status: 404,
        reason: 'videoNotFound',
        domain: 'youtube.video',
        message: 'The video that you are trying to delete cannot be found.',
      });
    }
    deps.numbers.remove(id);
    for (let index = deps.comments.length - 1; index >= 0; index--) {
      if (deps.comments[index]?.videoId === id) deps.comments.splice(index, 1);
    }
    deps.noContent(response);
  }

  function removeComment(response: ServerResponse, id: string) {
    const index = deps.comments.findIndex((comment) => comment.id === id);
    if (index < 0) {
      return deps.refuse(response, {
        status: 404,
        reason: 'commentNotFound',
        domain: 'youtube.comment',
        message: 'The comment identified by the id parameter could not be found.',
      });
    }
    deps.comments.splice(index, 1);
    deps.noContent(response);
  }

  /** Serves a DELETE of `path`; false when it is not one of the two. */
  function handle(response: ServerResponse, path: string, query: URLSearchParams, token: string) {
    if (path !== '/youtube/v3/videos' && path !== '/youtube/v3/comments') return false;
    const scopes = deps.scopesOf(token);
    if (scopes && !scopes.some((scope) => DELETE_SCOPES.includes(scope))) {
      deps.refuse(response, {
        status: 403,
        reason: 'insufficientPermissions',
        domain: 'global',
        message: 'Request had insufficient authentication scopes.',
      });
      return true;
    }
    const id = query.get('id') ?? '';
    if (path === '/youtube/v3/videos') removeVideo(response, id);
    else removeComment(response, id);
    return true;
  }

  return { handle, videoExists };
}
