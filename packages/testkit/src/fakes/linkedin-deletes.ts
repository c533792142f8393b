// The deleting half of the fake LinkedIn: DELETE /rest/posts/{urn} (204; again 204 for a post
// deleted before, LinkedIn's deletes being idempotent; 404 for one it never had) and DELETE
// /rest/socialActions/{urn}/comments/{id}?actor= (204; 404 for a comment it does not hold).
// The member must be the author (or administer the organization), with the w_* permission, as
// for publishing; the post's comments and numbers go with it.
import type { ServerResponse } from 'node:http';

interface DeleteError {
  status: number;
  code: string;
  message: string;
}

export interface LinkedinDeletesDeps {
  posts: Array<{ urn: string; author: string }>;
  comments: Array<{ urn: string; object: string; actor: string }>;
  /** The numbers socialActions answers: a deleted post's are removed (404 then). */
  numbers: { remove(urn: string): void };
  /** Why the token's member may not act as `author` (undefined: it may). */
  authorRefusal(author: unknown, scopes: string[], resource: string): DeleteError | undefined;
  refuse(response: ServerResponse, error: DeleteError): void;
}

const notFound = (what: string): DeleteError => ({
  status: 404,
  code: 'NOT_FOUND',
  message: `${what} does not exist`,
});

export function createLinkedinDeletes(deps: LinkedinDeletesDeps) {
  const deleted = new Set<string>();
  const noContent = (response: ServerResponse) => {
    response.writeHead(204, { 'content-length': '0' }).end();
  };

  /** DELETE /rest/posts/{url-encoded urn} */
  function removePost(response: ServerResponse, url: URL, scopes: string[]) {
    const urn = decodeURIComponent(url.pathname.split('/')[3] ?? '');
    const index = deps.posts.findIndex((post) => post.urn === urn);
    const post = deps.posts[index];
    if (!post) {
      return deleted.has(urn) ? noContent(response) : deps.refuse(response, notFound(urn));
    }
    const denied = deps.authorRefusal(post.author, scopes, 'posts.DELETE');
    if (denied) return deps.refuse(response, denied);
    deps.posts.splice(index, 1);
    for (let at = deps.comments.length - 1; at >= 0; at--) {
      if (deps.comments[at]?.object === urn) deps.comments.splice(at, 1);
    }
    deps.numbers.remove(urn);
    deleted.add(urn);
    noContent(response);
  }

  /** DELETE /rest/socialActions/{post urn}/comments/{comment id}?actor={urn}, as its actor. */
  function removeComment(response: ServerResponse, url: URL, scopes: string[]) {
    const segments = url.pathname.split('/');
    const object = decodeURIComponent(segments[3] ?? '');
    const id = decodeURIComponent(segments[5] ?? '');
    const urn = id.startsWith('urn:li:comment:') ? id : `urn:li:comment:(${object},${id})`;
    const index = deps.comments.findIndex((comment) => comment.urn === urn);
    const comment = deps.comments[index];
    if (!comment) return deps.refuse(response, notFound(urn));
    const actor = url.searchParams.get('actor') ?? undefined;
    const denied = deps.authorRefusal(actor, scopes, 'socialActions.comments.DELETE');
    if (denied) return deps.refuse(response, denied);
    if (actor !== comment.actor) {
      return deps.refuse(response, {
        status: 403,
        code: 'ACCESS_DENIED',
        message: `Not enough permissions to access: socialActions.comments.DELETE (${actor} did not write ${urn})`,
      });
    }
    deps.comments.splice(index, 1);
    noContent(response);
  }

  return { removePost, removeComment };
}
