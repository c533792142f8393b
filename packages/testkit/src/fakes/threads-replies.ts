// The replies half of the fake Threads API: replies by other profiles (`addReply`, what a test
// makes others write), GET /{threads-media-id}/replies (its direct replies) and /conversation
// (every reply below it, flattened), each with `username`, `timestamp`, `replied_to`,
// `hide_status` and `is_reply_owned_by_me` as Threads gives them, and POST
// /{reply-id}/manage_reply `hide` (`{ success: true }`). A post it does not hold is 100/33.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

/** What these routes read of a published post or reply (threads.ts ThreadsPost). */
export interface ThreadsReplyFields {
  id: string;
  userId: string;
  text: string;
  replyTo: string | null;
  timestamp: string;
  permalink: string;
}

const FAN = { id: '27000000000000099', username: 'a_fan' };

export function createThreadsReplies<P extends ThreadsReplyFields>(
  posts: P[],
  profile: () => { id: string; username: string },
  newId: () => string,
  /** A post of the fake's own shape with these fields (a text reply). */
  asPost: (fields: ThreadsReplyFields) => P,
  notThere: (response: ServerResponse, id: string) => void,
) {
  const hidden = new Set<string>();
  const usernames = new Map<string, string>([[FAN.id, FAN.username]]);

  function addReply(replyTo: string, text: string): P {
    const id = newId();
    const reply = asPost({
      id,
      userId: FAN.id,
      text,
      replyTo,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
      permalink: `https://www.threads.net/@${FAN.username}/post/${id}`,
    });
    posts.push(reply);
    return reply;
  }

  const json = (post: ThreadsReplyFields) => ({
    id: post.id,
    text: post.text,
    username: post.userId === profile().id ? profile().username : usernames.get(post.userId),
    timestamp: post.timestamp,
    media_type: 'TEXT_POST',
    is_reply: true,
    replied_to: { id: post.replyTo },
    hide_status: hidden.has(post.id) ? 'HIDDEN' : 'NOT_HUSHED',
    is_reply_owned_by_me: post.userId === profile().id,
  });

  /** Every reply below `id`, in time order (a reply after its parent). */
  function below(id: string): P[] {
    const found = new Set([id]);
    const out: P[] = [];
    for (const post of posts) {
      if (post.replyTo !== null && found.has(post.replyTo)) {
        found.add(post.id);
        out.push(post);
      }
    }
    return out;
  }

  /** Serves a replies route; false when the request is not one. */
  function handle(
    response: ServerResponse,
    method: string,
    id: string,
    edge: string | undefined,
    params: Record<string, string>,
  ): boolean {
    const post = posts.find((candidate) => candidate.id === id);
    // GET /{user-id}/replies is the profile's own replies (threads.ts): only media ids here.
    if (method === 'GET' && (edge === 'replies' || edge === 'conversation') && post) {
      const list = edge === 'replies' ? posts.filter((p) => p.replyTo === id) : below(id);
      sendJson(response, 200, {
        data: list.map(json),
        paging: { cursors: { before: 'b', after: 'a' } },
      });
      return true;
    }
    if (method === 'GET' && edge === 'conversation') {
      notThere(response, id);
      return true;
    }
    if (method === 'POST' && edge === 'manage_reply') {
      if (!post || post.replyTo === null) notThere(response, id);
      else {
        if (params.hide === 'true') hidden.add(id);
        else hidden.delete(id);
        sendJson(response, 200, { success: true });
      }
      return true;
    }
    return false;
  }

  return { addReply, hidden, handle };
}
