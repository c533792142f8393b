// The deleting half of the fake X API v2: DELETE /2/tweets/:id as X answers it. The author's
// own post is deleted: `{ data: { deleted: true } }`, and it is gone from the timeline, the
// lookups and the duplicate check. A post that is not there (deleted before, never existed)
// answers `{ data: { deleted: false } }`: X's `deleted` says whether *this* request deleted it.
// Another user's post is a 403. `deleteDelayMs` makes every delete slow (the fault suite kills
// workers while they wait); the post is deleted when the delay ends, whether or not the client
// is still there to hear it.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';
import type { XTweet } from './x-posts.ts';

export interface XDeleting {
  /** Ids of the posts deleted, in order. */
  deleted: string[];
  /** Delay before each delete acts and answers (ms, default 0). */
  deleteDelayMs: number;
}

const PATH = /^\/2\/tweets\/([^/]+)$/;

export function createXDeletes(tweets: XTweet[], userId: () => string) {
  const state: XDeleting = { deleted: [], deleteDelayMs: 0 };

  async function remove(response: ServerResponse, id: string) {
    if (state.deleteDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, state.deleteDelayMs));
    }
    const index = tweets.findIndex((tweet) => tweet.id === id);
    const tweet = tweets[index];
    if (!tweet) return sendJson(response, 200, { data: { deleted: false } });
    if (tweet.authorId !== userId()) {
      return sendJson(response, 403, {
        title: 'Forbidden',
        type: 'about:blank',
        status: 403,
        detail: 'You are not allowed to delete a Tweet that is not your own.',
      });
    }
    tweets.splice(index, 1);
    state.deleted.push(id);
    sendJson(response, 200, { data: { deleted: true } });
  }

  /** Serves DELETE /2/tweets/:id; false when the request is not one. */
  function handle(method: string, path: string, response: ServerResponse): boolean {
    const id = PATH.exec(path)?.[1];
    if (method !== 'DELETE' || id === undefined) return false;
    void remove(response, decodeURIComponent(id));
    return true;
  }

  return { state, handle };
}
