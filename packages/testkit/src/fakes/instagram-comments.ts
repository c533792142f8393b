// The comments half of the fake Instagram Graph API (Business Login): comments by others on the
// account's media (`addComment`, what a test makes others write) and the calls that manage
// them: GET /{media-id}/comments with `fields` (`from`, `timestamp`, `hidden`, and `replies`
// nested under their top-level comment, as Instagram gives them), POST /{comment-id}/replies
// `message` (a reply by the account, to a top-level comment only), GET /{comment-id}/replies,
// POST /{comment-id}?hide=, DELETE /{comment-id}. A comment that is not there is 100/33.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

/** A comment on a media: the account's own (POST /{ig-media-id}/comments) or another's. */
export interface InstagramComment {
  id: string;
  mediaId: string;
  message: string;
  from?: { id: string; username: string };
  /** The top-level comment it answers. */
  parentId?: string;
  timestamp?: string;
  hidden?: boolean;
}

type Refuse = (
  response: ServerResponse,
  error: { code: number; subcode?: number; message: string },
) => void;

const FAN = { id: '17841400000000099', username: 'a_fan' };

export function createInstagramComments(
  comments: InstagramComment[],
  account: () => { id: string; username: string },
  refuse: Refuse,
) {
  let counter = 0;
  const nextId = () => String(18_200_000_000_000_000n + BigInt(++counter));
  const find = (id: string) => comments.find((comment) => comment.id === id);
  const notThere = (response: ServerResponse, id: string) =>
    refuse(response, {
      code: 100,
      subcode: 33,
      message: `Unsupported request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
    });

  /** Someone else comments on a media (or answers a top-level comment). */
  function addComment(objectId: string, text: string): InstagramComment {
    const parent = find(objectId);
    const made: InstagramComment = {
      id: nextId(),
      mediaId: parent?.mediaId ?? objectId,
      message: text,
      from: FAN,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
      ...(parent ? { parentId: parent.id } : {}),
    };
    comments.push(made);
    return made;
  }

  const json = (comment: InstagramComment) => {
    const from = comment.from ?? account();
    return {
      id: comment.id,
      text: comment.message,
      username: from.username,
      from,
      timestamp: comment.timestamp ?? new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
      hidden: comment.hidden === true,
    };
  };

  /** GET /{media-id}/comments with fields: top-level comments newest first, replies nested. */
  function list(response: ServerResponse, mediaId: string) {
    const top = comments.filter((c) => c.mediaId === mediaId && !c.parentId).reverse();
    const data = top.map((comment) => {
      const replies = comments.filter((c) => c.parentId === comment.id);
      return {
        ...json(comment),
        ...(replies.length > 0 ? { replies: { data: replies.map(json) } } : {}),
      };
    });
    sendJson(response, 200, { data });
  }

  /** POST /{comment-id}/replies: the account answers a top-level comment. */
  function reply(response: ServerResponse, commentId: string, message: string | undefined) {
    const parent = find(commentId);
    if (!parent) return notThere(response, commentId);
    if (parent.parentId) {
      return refuse(response, {
        code: 100,
        message: '(#100) Replies to replies are not supported',
      });
    }
    if (!message)
      return refuse(response, { code: 100, message: '(#100) The parameter message is required' });
    const made: InstagramComment = {
      id: nextId(),
      mediaId: parent.mediaId,
      message,
      parentId: parent.id,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
    };
    comments.push(made);
    sendJson(response, 200, { id: made.id });
  }

  /** Serves a comment route; false when the request is not one. */
  function handle(
    response: ServerResponse,
    method: string,
    id: string,
    edge: string | undefined,
    params: Record<string, string>,
  ): boolean {
    const comment = find(id);
    if (method === 'GET' && edge === 'comments' && params.fields) {
      list(response, id);
      return true;
    }
    if (method === 'POST' && edge === 'replies') {
      reply(response, id, params.message);
      return true;
    }
    if (method === 'GET' && edge === 'replies') {
      if (!comment) notThere(response, id);
      else sendJson(response, 200, { data: comments.filter((c) => c.parentId === id).map(json) });
      return true;
    }
    if (edge !== undefined || (method !== 'DELETE' && params.hide === undefined)) return false;
    if (!comment) {
      notThere(response, id);
      return true;
    }
    if (method === 'DELETE') {
      for (let index = comments.length - 1; index >= 0; index--) {
        const made = comments[index];
        if (made && (made.id === id || made.parentId === id)) comments.splice(index, 1);
      }
    } else {
      comment.hidden = params.hide === 'true';
    }
    sendJson(response, 200, { success: true });
    return true;
  }

  return { addComment, handle };
}
