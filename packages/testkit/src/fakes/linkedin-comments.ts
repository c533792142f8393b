// The comments half of the fake LinkedIn: comments by others (`addComment`, on a post or as a
// reply to a comment), GET /rest/socialActions/{urn}/comments (a post's top-level comments, or
// a comment's replies: `{ elements: [{ id, $URN, actor, object, message: { text }, created: {
// time }, parentComment?, commentsSummary: { totalFirstLevelComments, aggregatedTotalComments }
// }], paging }`, needing r_member_social for a member's post and
// r_organization_social for an organization's, else 403 ACCESS_DENIED) and POST
// /rest/socialActions/{comment urn}/comments with `parentComment` (a reply, as the author).
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

interface CommentError {
  status: number;
  code: string;
  message: string;
}

/** A comment as the fake keeps it (linkedin.ts LinkedinComment). */
export interface LinkedinCommentFields {
  urn: string;
  object: string;
  actor: string;
  text: string;
  /** The comment it answers (a reply). */
  parent?: string;
  /** Epoch ms. */
  createdAt?: number;
}

export interface LinkedinCommentsDeps<C extends LinkedinCommentFields> {
  comments: C[];
  posts: Array<{ urn: string; author: string }>;
  asComment(fields: LinkedinCommentFields): C;
  nextId(): string;
  authorRefusal(author: unknown, scopes: string[], resource: string): CommentError | undefined;
  refuse(response: ServerResponse, error: CommentError): void;
}

const FAN = 'urn:li:person:someoneElse99';

export function createLinkedinComments<C extends LinkedinCommentFields>(
  deps: LinkedinCommentsDeps<C>,
) {
  const findComment = (urn: string) => deps.comments.find((comment) => comment.urn === urn);
  /** The post a post or comment URN is under. */
  const postOf = (urn: string) => {
    const object = findComment(urn)?.object ?? urn;
    return deps.posts.find((post) => post.urn === object);
  };
  const notFound = (urn: string): CommentError => ({
    status: 404,
    code: 'NOT_FOUND',
    message: `${urn} does not exist`,
  });

  function addComment(objectUrn: string, text: string): C {
    const parent = findComment(objectUrn);
    const object = parent?.object ?? objectUrn;
    const comment = deps.asComment({
      urn: `urn:li:comment:(${object},${deps.nextId()})`,
      object,
      actor: FAN,
      text,
      createdAt: Date.now(),
      ...(parent ? { parent: parent.urn } : {}),
    });
    deps.comments.push(comment);
    return comment;
  }

  const element = (comment: C) => {
    // LinkedIn nests one level: the replies under a comment are all its first-level ones.
    const replies = deps.comments.filter((reply) => reply.parent === comment.urn).length;
    return {
      id: /,(\d+)\)$/.exec(comment.urn)?.[1] ?? comment.urn,
      $URN: comment.urn,
      actor: comment.actor,
      object: comment.object,
      message: { text: comment.text },
      created: { time: comment.createdAt ?? Date.now() },
      ...(comment.parent ? { parentComment: comment.parent } : {}),
      commentsSummary: { totalFirstLevelComments: replies, aggregatedTotalComments: replies },
    };
  };

  function list(response: ServerResponse, urn: string, scopes: string[]) {
    const post = postOf(urn);
    if (!post) return deps.refuse(response, notFound(urn));
    const needed = post.author.startsWith('urn:li:person:')
      ? 'r_member_social'
      : 'r_organization_social';
    if (!scopes.includes(needed)) {
      return deps.refuse(response, {
        status: 403,
        code: 'ACCESS_DENIED',
        message: `Not enough permissions to access: socialActions.comments.GET_ALL (${needed} not granted)`,
      });
    }
    const parent = findComment(urn);
    const found = deps.comments.filter((comment) =>
      parent ? comment.parent === urn : comment.object === urn && !comment.parent,
    );
    sendJson(response, 200, {
      elements: found.reverse().map(element),
      paging: { start: 0, count: found.length, total: found.length },
    });
  }

  function reply(
    response: ServerResponse,
    urn: string,
    body: Record<string, unknown>,
    scopes: string[],
  ) {
    const parent = findComment(urn);
    if (!parent) return deps.refuse(response, notFound(urn));
    const denied = deps.authorRefusal(body.actor, scopes, 'socialActions.comments.CREATE');
    if (denied) return deps.refuse(response, denied);
    const text = (body.message as Record<string, unknown> | undefined)?.text;
    if (typeof text !== 'string' || text === '' || body.parentComment !== urn) {
      return deps.refuse(response, {
        status: 422,
        code: 'UNPROCESSABLE_ENTITY',
        message: 'ERROR :: /message/text and /parentComment are required',
      });
    }
    const id = deps.nextId();
    const comment = deps.asComment({
      urn: `urn:li:comment:(${parent.object},${id})`,
      object: parent.object,
      actor: String(body.actor),
      text,
      parent: urn,
      createdAt: Date.now(),
    });
    deps.comments.push(comment);
    sendJson(response, 201, element(comment), { 'x-restli-id': comment.urn });
  }

  /** Serves a comments route; false when the request is not one of these. */
  function handle(
    response: ServerResponse,
    method: string,
    url: URL,
    body: Record<string, unknown>,
    scopes: string[],
  ): boolean {
    const match = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(url.pathname);
    if (!match) return false;
    const urn = decodeURIComponent(match[1] ?? '');
    if (method === 'GET') {
      list(response, urn, scopes);
      return true;
    }
    if (method === 'POST' && urn.startsWith('urn:li:comment:')) {
      reply(response, urn, body, scopes);
      return true;
    }
    return false;
  }

  return { addComment, handle };
}
